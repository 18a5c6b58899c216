"""Matrix products, decompositions, solves, eigenproblems and norms (torch.linalg and its torch spellings)."""
