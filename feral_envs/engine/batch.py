"""Batch kernels compiled twice from one source: on numba's threads, and on the calling
thread alone.

A batch kernel is a loop ``for i in prange(rows.shape[0])`` over the games of a batch, each
game on its own (no game reads another's entries). Starting numba's threads costs a fixed
time per call: about 165 microseconds with the workqueue layer the engine uses
(:mod:`feral_envs.engine`; 3.5 with OpenMP's spinning threads), measured 2026-12-03 on the
2-core machine. A ``step`` of the batched API makes three such calls, while the games' own
work is about 2 microseconds a game for Hidden Ranks, 1 for Lost Heir and a few tens of
nanoseconds for a validity check. :func:`batch_kernel` therefore compiles each loop as it is
(``parallel=True``) and once more with ``prange`` as a plain ``range``, and a call runs the
second where the batch has fewer games than its engine's ``PARALLEL_FROM``, or numba has one
thread. One figure per game, not one per kernel: a step that mixed the two, each kernel
from its own break-even, was not better overall (``docs/vector.md``, "Threads", with the
figures of ``benchmarks/bench_threads.py``). Both variants come from the same source and
each game's result is the same either way (tests check it): only the speed depends on the
choice. Another machine may set a kernel's ``min_parallel``, or run a block with
:func:`forced`.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator
from typing import Any

import numba
from numba import njit

_FORCED: list[str] = []
"""The variant :func:`forced` imposes, innermost last (none: each call chooses)."""


@contextlib.contextmanager
def forced(variant: str) -> Iterator[None]:
    """Within the block every batch kernel runs ``variant`` ("parallel" or "serial"),
    whatever the batch's size: for benchmarks and tests of both."""
    if variant not in ("parallel", "serial"):
        raise ValueError(f"variant must be 'parallel' or 'serial'; got {variant!r}")
    _FORCED.append(variant)
    try:
        yield
    finally:
        _FORCED.pop()


class BatchKernel:
    """A batch kernel and its single-thread twin; calling it runs the one that suits the
    batch (``rows``, the first argument, a 2-D array with one row per game)."""

    def __init__(self, parallel: Any, serial: Any, min_parallel: int) -> None:
        self.parallel = parallel
        self.serial = serial
        self.min_parallel = min_parallel
        self.__doc__ = parallel.__doc__
        self.__name__ = parallel.__name__

    def __call__(self, rows: Any, *args: Any) -> Any:
        return self.choose(rows.shape[0])(rows, *args)

    def choose(self, n_games: int) -> Any:
        """The compiled kernel a call over ``n_games`` games runs."""
        if _FORCED:
            return getattr(self, _FORCED[-1])
        if n_games >= self.min_parallel and numba.get_num_threads() > 1:
            return self.parallel
        return self.serial

    def __repr__(self) -> str:
        return f"<batch kernel {self.__name__}: threads from {self.min_parallel} games>"


def batch_kernel(min_parallel: int):
    """Decorator: compile a batch kernel written with ``prange`` on numba's threads and on
    one thread (cached, as ``@njit(cache=True)``), run on threads from ``min_parallel``
    games on (:class:`BatchKernel`)."""

    def wrap(function: types.FunctionType) -> BatchKernel:
        parallel = njit(cache=True, parallel=True)(function)
        twin = types.FunctionType(
            function.__code__,
            function.__globals__,
            function.__name__ + "_serial",
            function.__defaults__,
            function.__closure__,
        )
        # numba's cache files are named by the qualified name: the twin gets its own.
        twin.__qualname__ = function.__qualname__ + "_serial"
        twin.__module__ = function.__module__
        twin.__doc__ = function.__doc__
        return BatchKernel(parallel, njit(cache=True)(twin), min_parallel)

    return wrap
