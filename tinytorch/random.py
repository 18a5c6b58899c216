"""Random number generation with PyTorch's CPU streams: ``Generator``, the default generator,
``manual_seed``, ``seed``, ``initial_seed``, ``get_rng_state``, ``set_rng_state``, ``fork_rng``.

The same seed gives the same numbers as PyTorch 2.13 on the CPU, bit for bit (the engine is in
``tinytorch/_random``), and ``get_state`` is PyTorch's 5056-byte layout, so states move between
the two libraries."""
from __future__ import annotations

import contextlib
import os

import numpy as np

from ._random.engine import DEFAULT_SEED, STATE_BYTES, Engine
from ._size import device as _device
from .tensor import Tensor, _make

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng"]

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


def manual_seed(seed) -> Generator:
    """Seed the default generator (``tinytorch.manual_seed(0)``); returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator from the operating system's entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state (uint8 tensor, 5056 bytes, PyTorch's layout)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """On exit, put the default generator back in the state it had on entry."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
