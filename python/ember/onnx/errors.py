"""The exceptions and warnings of ember.onnx (torch.onnx.errors)."""

__all__ = ["OnnxExporterError", "OnnxExporterWarning", "UnsupportedOperatorError"]


class OnnxExporterWarning(UserWarning):
    """Warnings in the ONNX exporter."""


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter; the base class of the exporter's errors."""


class UnsupportedOperatorError(OnnxExporterError):
    """An operation of the traced program that the exporter cannot write as ONNX: the message names it."""

    def __init__(self, name, version, supported_version=None):
        if supported_version is not None:
            msg = (
                "Exporting the operator '%s' to ONNX opset version %d is not supported. Support for this operator was "
                "added in version %d, try exporting with this version" % (name, version, supported_version)
            )
        else:
            msg = "Exporting the operator '%s' to ONNX opset version %d is not supported" % (name, version)
        super().__init__(msg)
        self.name = name
