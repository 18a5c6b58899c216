"""The Mersenne Twister behind every generator (``_random/engine.py``), for large draws: the 32-bit words numpy's
MT19937 gives, computed from its state in place, so the stream, and the state left behind, are numpy's (and so
PyTorch's CPU generator's) word for word. numpy hands out one word per call through its bit generator's function
pointer, about 2.4 ns a word here; these loops twist a block of 624 words and temper it in vector registers.

The state is numpy's own: ``key`` the 624 words and ``pos`` the index of the next one to temper (624: twist
first), as ``MT19937.state`` names them. Each kernel returns the new ``pos`` and leaves ``key`` twisted as numpy
would have. The twist and the tempering are Matsumoto and Nishimura's (1998): no library function is involved."""
from __future__ import annotations

import sys

import numpy as np
from numba import boolean, int64, uint32, uint64

from ._common import jit

_N, _M = 624, 397
_UPPER, _LOWER, _MATRIX = np.uint32(0x80000000), np.uint32(0x7FFFFFFF), np.uint32(0x9908B0DF)
_B, _C = np.uint32(0x9D2C5680), np.uint32(0xEFC60000)
_LOW53 = np.uint64((1 << 53) - 1)
_KEY = uint32[::1]

if sys.byteorder != "little":  # words64 puts the stream's words into 64-bit values by their memory order
    raise ImportError("the compiled MT19937 assumes a little-endian machine")


@jit([int64(_KEY, int64, _KEY)])
def words(key, pos, out):
    """The next ``out.size`` words (numpy's ``random_raw``, PyTorch's ``random()``) into ``out``; the new pos."""
    one = np.uint32(1)
    n = out.size
    k = 0
    while k < n:
        if pos == _N:  # the twist: the next 624 words of the recurrence, in place, word i from words i, i + 1
            # and i + 397 (mod 624), the ones past 227 from words already replaced (numpy's mt19937_gen)
            for i in range(_N - _M):
                y = (key[i] & _UPPER) | (key[i + 1] & _LOWER)
                key[i] = key[i + _M] ^ (y >> one) ^ (_MATRIX * (y & one))
            for i in range(_N - _M, _N - 1):
                y = (key[i] & _UPPER) | (key[i + 1] & _LOWER)
                key[i] = key[i + _M - _N] ^ (y >> one) ^ (_MATRIX * (y & one))
            y = (key[_N - 1] & _UPPER) | (key[0] & _LOWER)
            key[_N - 1] = key[_M - 1] ^ (y >> one) ^ (_MATRIX * (y & one))
            pos = 0
        take = min(_N - pos, n - k)
        src, dst = key[pos:pos + take], out[k:k + take]  # (slices: a loop index never negative, so it vectorises)
        for j in range(take):  # the tempering
            y = src[j]
            y = y ^ (y >> np.uint32(11))
            y = y ^ ((y << np.uint32(7)) & _B)
            y = y ^ ((y << np.uint32(15)) & _C)
            y = y ^ (y >> np.uint32(18))
            dst[j] = y
        k += take
        pos += take
    return pos


@jit([int64(_KEY, int64, uint64[::1])])
def words64(key, pos, out):
    """The next ``out.size`` pairs of words, each the 64-bit value high word first (numpy's ``next_uint64`` of
    MT19937, PyTorch's ``random64()``); the new pos. The words go into ``out``'s memory in stream order,
    then each 64-bit value has its halves swapped (on a little-endian machine the stream's first word
    is the low half of the memory's first 64 bits)."""
    pos = words(key, pos, out.view(np.uint32))
    for i in range(out.size):
        v = out[i]
        out[i] = (v << np.uint64(32)) | (v >> np.uint64(32))
    return pos


@jit([int64(_KEY, int64, uint64, boolean[::1])])
def below53(key, pos, bound, out):
    """out[i] = (the low 53 bits of the next 64-bit value) < bound, for ``out.size`` values (a Bernoulli draw
    by a double uniform, ``_random/draws.py``), a block of values at a time; the new pos."""
    buf = np.empty(4 * _N, np.uint64)  # a few blocks' values at a time, in the cache
    n = out.size
    k = 0
    while k < n:
        take = min(buf.size, n - k)
        pos = words64(key, pos, buf[:take])
        dst = out[k:k + take]
        for j in range(take):
            dst[j] = (buf[j] & _LOW53) < bound
        k += take
    return pos
