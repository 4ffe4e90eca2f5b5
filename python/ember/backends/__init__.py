"""ember.backends: the switches of the CUDA libraries (PyTorch's torch.backends). They live in C++
(ember::cuda::flags(), read by the CUDA kernels at each call) and exist in every build."""

from . import cuda, cudnn, mkl, mkldnn, mps, openmp  # noqa: F401
