"""Random number generation: ``Generator``, the default generator and ``manual_seed``.

A ``Generator`` wraps numpy's ``np.random.Generator`` (PCG64). Its state travels as a uint8 tensor,
as PyTorch's does, so it can go into a checkpoint and be restored bit for bit. The streams are
numpy's, not PyTorch's: the same seed gives different numbers than PyTorch."""
from __future__ import annotations

import numpy as np

_STATE_BYTES = 40  # PCG64: 128-bit state, 128-bit increment, has_uint32 and uinteger


class Generator:
    """A seeded source of random numbers, passed as ``generator=`` to samplers and random ops."""

    def __init__(self, device="cpu"):
        self.device = device
        self._seed = 67280421310721  # PyTorch's default seed
        self._rng = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed: int) -> "Generator":
        """Reseed; returns the generator so calls can be chained."""
        seed = int(seed)
        self._seed = seed
        # PyTorch accepts negative seeds (taken modulo 2**64); so does this
        self._rng = np.random.Generator(np.random.PCG64(seed % (1 << 64)))
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy and return the new seed."""
        new = int(np.random.SeedSequence().entropy % (1 << 63))
        self.manual_seed(new)
        return new

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor of 40 bytes."""
        from .factory import from_numpy

        st = self._rng.bit_generator.state
        raw = (st["state"]["state"].to_bytes(16, "little") + st["state"]["inc"].to_bytes(16, "little")
               + int(st["has_uint32"]).to_bytes(4, "little") + int(st["uinteger"]).to_bytes(4, "little"))
        return from_numpy(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state) -> "Generator":
        """Restore a state made by ``get_state``."""
        raw = np.asarray(new_state.numpy() if hasattr(new_state, "numpy") else new_state)
        if raw.dtype != np.uint8 or raw.shape != (_STATE_BYTES,):
            raise RuntimeError(
                f"Expected a uint8 tensor of {_STATE_BYTES} elements as the generator state, "
                f"got dtype {raw.dtype} and shape {tuple(raw.shape)}")
        b = raw.tobytes()
        bg = np.random.PCG64()
        bg.state = {
            "bit_generator": "PCG64",
            "state": {"state": int.from_bytes(b[0:16], "little"), "inc": int.from_bytes(b[16:32], "little")},
            "has_uint32": int.from_bytes(b[32:36], "little"),
            "uinteger": int.from_bytes(b[36:40], "little"),
        }
        self._rng = np.random.Generator(bg)
        return self


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (``tinytorch.manual_seed(0)``)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)


def _np_rng(generator: Generator | None) -> np.random.Generator:
    """The numpy generator behind ``generator`` (the default one for None)."""
    if generator is None:
        return default_generator._rng
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a tinytorch.Generator, not {type(generator).__name__}")
    return generator._rng
