"""The special functions of torch.special."""
