"""Learning-rate schedulers (PyTorch's torch.optim.lr_scheduler)."""
