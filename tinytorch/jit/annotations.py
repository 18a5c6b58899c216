"""``tinytorch.jit.annotations``: TorchScript's type spellings, as the plain typing types they mean in Python."""
from typing import List

__all__ = ["BroadcastingList1", "BroadcastingList2", "BroadcastingList3"]

# ``BroadcastingList2[int]``: an int or a list of 2 ints; to Python's typing, a List
BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = List
