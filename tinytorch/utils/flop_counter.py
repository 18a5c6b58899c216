"""``torch.utils.flop_counter``: ``FlopCounterMode`` as far as it can be honest on tinytorch. Counting needs a
dispatch mode that sees every op, which tinytorch does not have, so entering the counter refuses; a counter
that was never entered reports what it counted, nothing (Lightning's model summary makes one and prints its
total, which PyTorch's also reports as 0 until a forward runs inside it)."""
from __future__ import annotations

__all__ = ["FlopCounterMode", "register_flop_formula"]

_NO_MODES = ("tinytorch cannot count FLOPs: FlopCounterMode is a dispatch mode that must see every op, and "
             "tinytorch's ops have no mode stack")


class FlopCounterMode:
    def __init__(self, mods=None, depth: int = 2, display: bool = True, custom_mapping=None) -> None:
        self.depth = depth
        self.display = display
        self.flop_counts: dict = {"Global": {}}

    def get_total_flops(self) -> int:
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self) -> dict:
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None) -> str:
        return "Module      FLOP    % Total\n--------  ------  ---------\nGlobal         0         0%"

    def __enter__(self):
        raise NotImplementedError(_NO_MODES)

    def __exit__(self, *exc):
        return False


def register_flop_formula(targets, get_raw: bool = False):
    raise NotImplementedError(_NO_MODES)
