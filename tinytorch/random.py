"""Random number generation with PyTorch's CPU streams: ``Generator``, the default generator,
``manual_seed``, ``seed``, ``initial_seed``, ``get_rng_state``, ``set_rng_state``, ``fork_rng``.

The same seed gives the same numbers as PyTorch 2.13 on the CPU, bit for bit (the generator and its
engine are in ``tinytorch/_random``), and ``get_state`` is PyTorch's 5056-byte layout, so states move
between the two libraries."""
from __future__ import annotations

import contextlib

# the generator lives with its engine in _random/engine.py; _engine is named here too for the op families
# that draw through it (_ops/nn: dropout, attention, rrelu, fractional pooling)
from ._random.engine import Generator, _engine, default_generator  # noqa: F401

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng"]


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
