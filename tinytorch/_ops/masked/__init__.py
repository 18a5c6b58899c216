"""torch.masked: reductions and normalizations over the elements a mask keeps, built on the reductions,
linalg's norms and the softmaxes (a family above them)."""
