"""The parts of ember.utils.benchmark, in the modules PyTorch keeps them in."""
