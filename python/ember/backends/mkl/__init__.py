"""ember.backends.mkl: Intel MKL, which ember does not use (OpenBLAS and oneDNN do its CPU math)."""


def is_available():
    return False
