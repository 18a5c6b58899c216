"""The ``Generator`` (PyTorch's CPU generator: an MT19937 ``Engine`` and its seed), the default generator,
and ``_engine``, which every draw uses to find the engine behind a ``generator=`` argument.
``tinytorch.random`` is the public module over them (``manual_seed``, ``get_rng_state``, ``fork_rng``...)."""
from __future__ import annotations

import os

import numpy as np

from .._size import device as _device
from ..tensor import Tensor, _make
from .engine import DEFAULT_SEED, STATE_BYTES, Engine

_U64 = 1 << 64


def _seed_value(seed) -> int:
    """PyTorch's accepted seeds: any int in [-2**63, 2**64), negatives taken modulo 2**64."""
    seed = int(seed)
    if seed < -(1 << 63) or seed >= _U64:
        raise ValueError("Overflow when unpacking long long")
    return seed % _U64


class Generator:
    """A seeded source of random numbers (PyTorch's CPU generator), passed as ``generator=``."""

    __module__ = "tinytorch._C"  # where PyTorch's class lives: <class 'torch._C.Generator'>
    def __init__(self, device="cpu") -> None:
        self.device = _device(device)
        self._engine = Engine(DEFAULT_SEED)

    def manual_seed(self, seed) -> "Generator":
        """Reseed; returns the generator so calls can be chained."""
        self._engine.reseed(_seed_value(seed))
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy and return the new seed."""
        new = int.from_bytes(os.urandom(8), "little")
        self._engine.reseed(new)
        return new

    def initial_seed(self) -> int:
        return self._engine.seed

    def get_state(self):
        """The state as a uint8 tensor of 5056 bytes, in PyTorch's layout."""
        return _make(self._engine.get_state())

    def set_state(self, new_state) -> "Generator":
        """Restore a state made by ``get_state`` here or by PyTorch."""
        if not isinstance(new_state, Tensor) or new_state._data.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(new_state._data).reshape(-1)
        if raw.size != STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input "
                               f"RNG state size to be {raw.size}")
        self._engine.set_state(raw)
        return self

    def __repr__(self) -> str:
        return f"<tinytorch.Generator object at {hex(id(self))}>"


default_generator = Generator()


def _engine(generator) -> Engine:
    """The engine behind ``generator`` (the default generator's for None)."""
    if generator is None:
        return default_generator._engine
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a tinytorch.Generator, not {type(generator).__name__}")
    return generator._engine
