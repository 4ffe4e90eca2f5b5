"""ember.backends.openmp: OpenMP, which oneDNN's CPU kernels use (ember's own ops use its thread pool)."""


def is_available():
    return True
