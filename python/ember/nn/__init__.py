"""ember.nn: neural-network building blocks. Issue 5 adds Module and the layers; for now the functional API."""
from . import functional  # noqa: F401
