"""ember.backends.mkldnn: oneDNN (formerly MKL-DNN), which runs ember's CPU convolutions and 16-bit matmuls."""


def is_available():
    return True
