"""The random sampling functions (torch.rand, randn, randint, randperm, normal, multinomial, bernoulli, the
in-place draws Tensor.uniform_ ...), declared over the streams of tinytorch/_random."""
