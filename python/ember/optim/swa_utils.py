"""Stochastic weight averaging and EMA of weights (PyTorch's torch.optim.swa_utils)."""
