"""ember.backends.cuda: matmul.allow_tf32 and the reduced-precision reduction switches of cuBLAS."""
from ... import _C

_MATMUL_FLAGS = {"allow_tf32": "allow_tf32_matmul",
                 "allow_fp16_reduced_precision_reduction": "allow_fp16_reduced_precision_reduction",
                 "allow_bf16_reduced_precision_reduction": "allow_bf16_reduced_precision_reduction"}


class cuBLASModule:
    def __getattr__(self, name):
        if name in _MATMUL_FLAGS:
            return _C._cuda_get_flag(_MATMUL_FLAGS[name])
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name not in _MATMUL_FLAGS:
            raise AttributeError(f"Unknown attribute {name}")
        _C._cuda_set_flag(_MATMUL_FLAGS[name], bool(value))


matmul = cuBLASModule()


def is_built():
    """True when ember was built with CUDA (whether or not a GPU is present)."""
    return _C._cuda_is_built()
