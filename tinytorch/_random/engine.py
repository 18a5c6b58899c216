"""``tinytorch.Generator`` and the engine behind it: PyTorch's CPU generator state on numpy's MT19937.

The ``Generator`` (PyTorch's CPU generator: an MT19937 ``Engine`` and its seed), the default generator,
and ``_engine``, which every draw uses to find the engine behind a ``generator=`` argument.
``tinytorch.random`` is the public module over them (``manual_seed``, ``get_rng_state``, ``fork_rng``...).

PyTorch's CPU generator is a 32-bit Mersenne Twister seeded by the classic ``init_genrand``
recurrence from the low 32 bits of the seed, plus two cached normals. numpy's MT19937 produces the
same 32-bit outputs once its key is set by that recurrence, so the twisting and tempering run in
numpy's C code; this module keeps PyTorch's bookkeeping around it (the 64-bit seed, the "just
seeded" position, the caches) and its 5056-byte ``get_state`` layout.

Large draws take the compiled MT19937 (``_ops/_kernels/compiled/mersenne_twister.py``) where numba is already loaded
in the process for another family of kernels (it is never imported for the generator alone: its import costs
more than a program's draws save): the same words, computed in numpy's state in place."""
from __future__ import annotations

import ctypes
import functools
import os

import numpy as np

from .._ops._kernels import compiled
from .._size import device as _device
from ..tensor import Tensor, _make

DEFAULT_SEED = 67280421310721  # what a fresh torch.Generator() reports as its seed
STATE_BYTES = 5056
_N = 624  # Mersenne Twister state words
_CHUNK = 1 << 15
_COMPILED_FROM = 4096  # words drawn at once from which the compiled MT19937 takes over

# offsets of PyTorch's CPUGeneratorImplState (little-endian, with its padding)
_OFF_SEED, _OFF_LEFT, _OFF_SEEDED, _OFF_NEXT, _OFF_WORDS = 0, 8, 12, 16, 24
_OFF_NX, _OFF_NY, _OFF_NRHO, _OFF_NVALID, _OFF_FNORMAL, _OFF_FVALID = 5016, 5024, 5032, 5040, 5048, 5052


def _live_state(bitgen: np.random.MT19937):
    """(key, pos): numpy arrays over ``bitgen``'s own state (numpy's ``mt19937_state``: 624 uint32 words then
    an int position), for the compiled kernels to draw in place; None where that layout does not hold
    (``_state_layout_holds``), and the kernels then go through the ``state`` property. Made for each draw
    (a third of a microsecond), so a copied or unpickled generator never draws through another's state."""
    if not _state_layout_holds():
        return None
    words = _state_words(bitgen)
    return words[:_N], words[_N:].view(np.int32)


def _state_words(bitgen: np.random.MT19937) -> np.ndarray:
    """The 625 32-bit words at the address of ``bitgen``'s state, as a writable array over them."""
    return np.frombuffer((ctypes.c_uint32 * (_N + 1)).from_address(bitgen.ctypes.state_address), np.uint32)


@functools.cache
def _state_layout_holds() -> bool:
    """Whether numpy's MT19937 keeps its state as 624 words then the position, checked once on a scratch
    generator: a state set through the ``state`` property read in place, and one written in place read back
    through the property."""
    try:
        g = np.random.MT19937(0)
        key = np.arange(1, _N + 1, dtype=np.uint32) * np.uint32(2654435761)
        g.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 100}}
        words = _state_words(g)
        if not (np.array_equal(words[:_N], key) and int(words[_N:].view(np.int32)[0]) == 100):
            return False
        words[:_N] = key[::-1]
        words[_N:].view(np.int32)[0] = 200
        st = g.state["state"]
        return bool(np.array_equal(st["key"], key[::-1]) and st["pos"] == 200)
    except Exception:  # noqa: BLE001  (no ctypes interface: the state property)
        return False


def _twister(words: int):
    """The compiled MT19937 (``compiled/mersenne_twister.py``) for a draw of ``words`` words: None below
    ``_COMPILED_FROM`` words or where numba is not already loaded (numpy's own draws then)."""
    return compiled.loaded_family("mersenne_twister") if words >= _COMPILED_FROM else None


def _init_genrand(seed32: int) -> np.ndarray:
    """The 624-word key of the classic ``init_genrand(seed32)``, via numpy's legacy seeding, which is
    that same recurrence (and runs in C)."""
    return np.random.RandomState(seed32).get_state()[1]


class Engine:
    """MT19937 words and position, the seed, and the cached normals of one generator."""

    __slots__ = ("seed", "bitgen", "gen", "fresh", "normal_y", "normal_valid", "float_normal", "float_valid")

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self.bitgen = np.random.MT19937()
        # numpy's full-range integers are one 32-bit output (uint32) or two, first high (uint64):
        # PyTorch's random() and random64(), without a pass to convert them
        self.gen = np.random.Generator(self.bitgen)
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        self.seed = seed % (1 << 64)
        self.bitgen.state = {"bit_generator": "MT19937",
                             "state": {"key": _init_genrand(self.seed & 0xFFFFFFFF), "pos": _N}}
        # PyTorch writes left=1, next=0 here; numpy's pos=624 draws the same next word, but the
        # state bytes differ, so remember that nothing was drawn since seeding
        self.fresh = True
        self.normal_y, self.normal_valid = 0.0, False
        self.float_normal, self.float_valid = 0.0, False

    # -- raw draws ---------------------------------------------------------------------------------
    def u32(self, n: int) -> np.ndarray:
        """``n`` 32-bit outputs (PyTorch's ``random()``), as uint32."""
        if n:
            self.fresh = False
        kernels = _twister(n)
        if kernels is not None:
            return self._compiled(kernels.words, np.empty(n, np.uint32))
        return self.gen.integers(0, 1 << 32, size=n, dtype=np.uint32)

    def u64(self, n: int) -> np.ndarray:
        """``n`` 64-bit outputs (PyTorch's ``random64()``: first word high, second low)."""
        if n:
            self.fresh = False
        kernels = _twister(2 * n)
        if kernels is not None:
            return self._compiled(kernels.words64, np.empty(n, np.uint64))
        return self.gen.integers(0, (1 << 64) - 1, size=n, dtype=np.uint64, endpoint=True)

    def below53_compiled(self, n: int, bound: int):
        """``n`` booleans, the low 53 bits of a 64-bit output < ``bound`` (0 <= bound <= 2**53), one output each,
        in one pass of the compiled generator; None where it does not run (the caller draws ``u64``)."""
        kernels = _twister(2 * n)
        if kernels is None:
            return None
        self.fresh = False
        return self._compiled(kernels.below53, np.empty(n, np.bool_), np.uint64(bound))

    def _compiled(self, kernel, out: np.ndarray, *args) -> np.ndarray:
        """``kernel``'s draws into ``out``, from and back into the generator's state (under its lock, as numpy
        draws)."""
        with self.bitgen.lock:
            live = _live_state(self.bitgen)
            if live is not None:
                key, pos = live
                pos[0] = kernel(key, int(pos[0]), *args, out)
            else:
                st = self.bitgen.state["state"]
                key = np.array(st["key"], np.uint32)
                pos = kernel(key, int(st["pos"]), *args, out)
                self.bitgen.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        return out

    def float32_uniform(self, n: int) -> np.ndarray:
        """``n`` float32 uniforms on [0, 1): the low 24 bits of one word times 2**-24."""
        out = np.empty(n, np.float32)
        for start in range(0, n, _CHUNK):  # small temporaries, reused from the allocator's cache
            w = self.u32(min(_CHUNK, n - start))
            np.bitwise_and(w, np.uint32(0xFFFFFF), out=w)
            np.multiply(w.view(np.int32), np.float32(2.0 ** -24), out=out[start:start + w.size],
                        dtype=np.float32, casting="unsafe")
        return out

    def float64_uniform(self, n: int) -> np.ndarray:
        """``n`` float64 uniforms on [0, 1): the low 53 bits of one 64-bit draw times 2**-53."""
        w = self.u64(n)
        np.bitwise_and(w, np.uint64((1 << 53) - 1), out=w)
        out = w.view(np.int64).astype(np.float64)
        out *= 2.0 ** -53
        return out

    # -- state in PyTorch's layout -----------------------------------------------------------------
    def get_state(self) -> np.ndarray:
        st = self.bitgen.state["state"]
        pos = int(st["pos"])
        out = np.zeros(STATE_BYTES, dtype=np.uint8)
        header = np.zeros(3, dtype=np.uint64)
        header[0] = self.seed
        left, nxt = (1, 0) if self.fresh else (_N + 1 - pos, pos)
        out[_OFF_SEED:_OFF_SEED + 8] = header[:1].view(np.uint8)
        out[_OFF_LEFT:_OFF_LEFT + 8] = np.array([left, 1], dtype="<i4").view(np.uint8)
        out[_OFF_NEXT:_OFF_NEXT + 8] = np.array([nxt], dtype="<u8").view(np.uint8)
        out[_OFF_WORDS:_OFF_NX] = np.asarray(st["key"], dtype="<u8").view(np.uint8)
        out[_OFF_NY:_OFF_NY + 8] = np.array([self.normal_y], dtype="<f8").view(np.uint8)
        out[_OFF_NVALID:_OFF_NVALID + 4] = np.array([int(self.normal_valid)], dtype="<i4").view(np.uint8)
        out[_OFF_FNORMAL:_OFF_FNORMAL + 4] = np.array([self.float_normal], dtype="<f4").view(np.uint8)
        out[_OFF_FVALID] = int(self.float_valid)
        return out

    def set_state(self, raw: np.ndarray) -> None:
        b = raw.tobytes()
        seed = int(np.frombuffer(b, "<u8", 1, _OFF_SEED)[0])
        left = int(np.frombuffer(b, "<i4", 1, _OFF_LEFT)[0])
        nxt = int(np.frombuffer(b, "<u8", 1, _OFF_NEXT)[0])
        words = np.frombuffer(b, "<u8", _N, _OFF_WORDS)
        if left < 1 or left > _N + 1 or nxt > _N:
            raise RuntimeError("Invalid mt19937 state")
        self.seed = seed
        # left=1 means the next draw twists first, whatever next says: numpy's pos=624
        self.bitgen.state = {"bit_generator": "MT19937",
                             "state": {"key": (words & 0xFFFFFFFF).astype(np.uint32), "pos": _N + 1 - left}}
        self.fresh = left == 1 and nxt == 0
        self.normal_y = float(np.frombuffer(b, "<f8", 1, _OFF_NY)[0])
        self.normal_valid = bool(np.frombuffer(b, "<i4", 1, _OFF_NVALID)[0])
        self.float_normal = float(np.frombuffer(b, "<f4", 1, _OFF_FNORMAL)[0])
        self.float_valid = bool(b[_OFF_FVALID])


# -- the Generator over the engine ----------------------------------------------------------------
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


default_generator = Generator()


def _engine(generator) -> Engine:
    """The engine behind ``generator`` (the default generator's for None)."""
    if generator is None:
        return default_generator._engine
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a tinytorch.Generator, not {type(generator).__name__}")
    return generator._engine
