"""ember.onnx: export a Module to ONNX (torch.onnx.export), built on ember.fx's symbolic tracing.

The program is traced with ember.fx, run once on the example inputs (which gives every value's dtype and shape),
and each node is written as ONNX operators with the ``onnx`` package (an optional dependency: ``pip install onnx``,
imported only when exporting). See docs/onnx.md for the supported operations and the differences from PyTorch.
"""

from ._exporter import TrainingMode, export, is_in_onnx_export
from ._symbolic import register_custom_op_symbolic, unregister_custom_op_symbolic
from .errors import OnnxExporterError, OnnxExporterWarning, UnsupportedOperatorError

__all__ = [
    "OnnxExporterError",
    "OnnxExporterWarning",
    "TrainingMode",
    "UnsupportedOperatorError",
    "export",
    "is_in_onnx_export",
    "register_custom_op_symbolic",
    "unregister_custom_op_symbolic",
]

producer_name = "ember"
