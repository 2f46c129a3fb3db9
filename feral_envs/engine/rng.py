"""The random stream that every game carries in its own state row.

A game's randomness (deals, the Trump Card flip, random setups) comes from four 32-bit words
at the start of its state row (:data:`WORDS`), advanced by the xoshiro128** generator
(Blackman and Vigna). A game's course then depends only on its seed and its actions: not on
the batch it sits in, the order of the games or the number of threads, and a clone (a copy of
the row) has the same future.

The words are stored in the row's int32 entries as signed values; the kernels read them as
unsigned 32-bit integers held in int64 and mask every result to 32 bits, so the same source
runs compiled and as plain Python (``NUMBA_DISABLE_JIT=1``) with no overflow in either.

``seed_words(seed)`` turns an integer seed into the four words with numpy's ``SeedSequence``
(never all zero, which xoshiro forbids).
"""

from __future__ import annotations

import numpy as np
from numba import njit

N_WORDS = 4
"""Entries ``0 .. 3`` of a state row (or of any row handed to these kernels) are the words."""
_M32 = 0xFFFFFFFF
_TOP = 1 << 32
_SIGN = 1 << 31


def seed_words(seed: int) -> np.ndarray:
    """The four stream words of ``seed`` (any non-negative integer), as int32."""
    words = np.random.SeedSequence(int(seed)).generate_state(N_WORDS, np.uint32)
    if not words.any():  # xoshiro's one forbidden state; SeedSequence practically never gives it
        words[0] = 1
    return words.view(np.int32).copy()


def words_from(rng: np.random.Generator) -> np.ndarray:
    """Four stream words drawn from a numpy generator (for a reset without a seed)."""
    return seed_words(int(rng.integers(0, 2**63)))


@njit(cache=True)
def _get(row, i):
    return np.int64(row[i]) & _M32


@njit(cache=True)
def _put(row, i, value):
    row[i] = value - _TOP if value >= _SIGN else value


@njit(cache=True)
def _rotl(x, k):
    return ((x << k) | (x >> (32 - k))) & _M32


@njit(cache=True)
def next32(row):
    """The next 32-bit output (``0 .. 2**32 - 1``) of the stream in ``row[0:4]``."""
    s0, s1, s2, s3 = _get(row, 0), _get(row, 1), _get(row, 2), _get(row, 3)
    result = (_rotl((s1 * 5) & _M32, 7) * 9) & _M32
    t = (s1 << 9) & _M32
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 11)
    _put(row, 0, s0)
    _put(row, 1, s1)
    _put(row, 2, s2)
    _put(row, 3, s3)
    return result


@njit(cache=True)
def below(row, n):
    """A uniform integer in ``0 .. n - 1`` (``1 <= n <= 2**32``), exactly: Lemire's
    multiply-and-shift with rejection of the few biased products."""
    product = next32(row) * n
    low = product & _M32
    if low < n:
        threshold = (_TOP - n) % n
        while low < threshold:
            product = next32(row) * n
            low = product & _M32
    return product >> 32


@njit(cache=True)
def shuffle(row, values, n):
    """Shuffle ``values[0:n]`` in place (Fisher-Yates, from the last entry down)."""
    for i in range(n - 1, 0, -1):
        j = below(row, i + 1)
        tmp = values[i]
        values[i] = values[j]
        values[j] = tmp


@njit(cache=True)
def permutation(row, n, out):
    """``out[0:n]`` = ``0 .. n - 1`` shuffled."""
    for i in range(n):
        out[i] = i
    shuffle(row, out, n)


class StreamGenerator:
    """The part of ``np.random.Generator`` that draws from a state row's stream, in the
    engine's own way (``integers(n)``, ``permutation(n or array)``).

    A test predicts with it what a game of given stream words deals; it drove the old
    pure-Python cores from the engine's stream when the golden fixtures were recorded."""

    def __init__(self, words: np.ndarray) -> None:
        self.row = np.array(words, dtype=np.int32).copy()

    def integers(self, n: int) -> int:
        return int(below(self.row, int(n)))

    def permutation(self, x):
        if isinstance(x, (int, np.integer)):
            out = np.empty(int(x), dtype=np.int64)
            permutation(self.row, int(x), out)
            return out
        out = np.array(x).copy()
        shuffle(self.row, out, len(out))
        return out
