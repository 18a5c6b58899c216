"""What every op family stands on: the op registry and its dispatch, vmap's batching, the node
recording helpers, operand and dtype utilities, and the one-line pointwise and binary declarations."""
