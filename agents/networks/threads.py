"""torch's threads while a frozen network scores a small batch (:mod:`agents.networks.cards`,
:mod:`agents.networks.board`).

Play asks for one decision at a time, and the batched arena asks row by row where the rows
must score as they would alone (``Actor.logits_rows``). On so few rows torch's other threads
only wait for each other, and on a busy machine they wait for a core: the Hidden Ranks arena
of a trained agent (``python -m agents.arena hidden_ranks --mode quick --games 120``, five
agents) beside one training run on the 2-core machine played 105 of its 1,200 games in 300 s
on torch's default two threads and all of them in 98 s on one (2026-12-07); a card network
took 2.4 ms a decision on one thread and 10 ms on two.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

SMALL_BATCH = 8
"""Batches up to this size are scored on one thread."""


@contextlib.contextmanager
def small_batch_threads(rows: int) -> Iterator[None]:
    """Within the block, torch runs on one thread if ``rows`` is at most ``SMALL_BATCH``;
    the caller's thread count is restored after it."""
    threads = torch.get_num_threads()
    if rows <= SMALL_BATCH and threads > 1:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
