"""One card encoding that both card games share, and who wins a trick.

A deck is a table indexed by card id (``0 .. n-1``): each card's name, its suit and its
*power*, the order in which cards of one suit beat each other. Cards that can never win a
trick (Lost Ranks' Jacks and Spy) have power ``CANNOT_WIN``; a card that belongs to no suit
(the Spy) has suit ``NO_SUIT``. A hand is a boolean mask over card ids, a trick a short list
of card ids in play order: no card objects.

The per-game differences live in the deck tables, not in code: Lost Heir's 0 cards are plain
low cards of their city (power 0), Lost Ranks' Jacks follow suit but cannot win, and its Spy
has neither suit nor power. The compiled engines (``feral_envs.<game>.engine``) play the
tricks; :func:`trick_winner` reads a trick for the heuristic bot and the terminal app.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

NO_SUIT = -1
"""Suit of a card that belongs to no suit (the Spy), and the led suit of a trick led by one."""
CANNOT_WIN = -1
"""Power of a card that never wins a trick."""
NO_CARD = -1
"""Empty slot in a trick or in a fixed-size record of cards."""
NO_WINNER = -1
"""What :func:`trick_winner` returns for a void trick (no card able to win it)."""


@dataclass(frozen=True)
class Deck:
    """The fixed table of one game's cards."""

    names: tuple[str, ...]
    suit_names: tuple[str, ...]
    suit_of: tuple[int, ...]  # suit index of each card, NO_SUIT for none
    power_of: tuple[int, ...]  # higher beats lower within a suit, CANNOT_WIN never wins
    _index: dict[str, int] = field(repr=False)

    @classmethod
    def build(
        cls,
        names: Sequence[str],
        suits: Sequence[int],
        powers: Sequence[int],
        suit_names: Sequence[str],
    ) -> Deck:
        if not len(names) == len(suits) == len(powers):
            raise ValueError("names, suits and powers must have one entry per card")
        if len(set(names)) != len(names):
            raise ValueError("card names must be distinct")
        return cls(
            names=tuple(names),
            suit_names=tuple(suit_names),
            suit_of=tuple(int(s) for s in suits),
            power_of=tuple(int(p) for p in powers),
            _index={name: i for i, name in enumerate(names)},
        )

    @property
    def n(self) -> int:
        return len(self.names)

    def card(self, name: str) -> int:
        """Card id of ``name`` (case-insensitive); ``ValueError`` naming the deck otherwise."""
        key = name.strip().upper() if isinstance(name, str) else name
        if key not in self._index:
            raise ValueError(f"unknown card {name!r}; cards are: {' '.join(self.names)}")
        return self._index[key]

    def cards(self, names: Iterable[str]) -> list[int]:
        """Card ids of ``names``; ``ValueError`` on an unknown or repeated card."""
        ids = [self.card(n) for n in names]
        if len(set(ids)) != len(ids):
            dup = sorted({self.names[i] for i in ids if ids.count(i) > 1})
            raise ValueError(f"card(s) given more than once: {', '.join(dup)}")
        return ids

    def hand_names(self, hand: np.ndarray) -> list[str]:
        """Names of the cards in a boolean hand mask, in card-id order."""
        return [self.names[i] for i in np.flatnonzero(hand)]


def trick_winner(trick: Sequence[int], led_suit: int, trump: int, deck: Deck) -> int:
    """Position in ``trick`` of the winning card, or ``NO_WINNER`` for a void trick.

    The highest-powered trump wins; with no trump able to win, the highest-powered card of
    the led suit; cards of power ``CANNOT_WIN`` are ignored throughout. ``trump`` may be
    ``NO_SUIT`` (no trump named yet).
    """
    suit_of, power_of = deck.suit_of, deck.power_of
    best_pos, best_key = NO_WINNER, -1
    for pos, card in enumerate(trick):
        power = power_of[card]
        if power == CANNOT_WIN:
            continue
        suit = suit_of[card]
        if suit == trump:
            key = 1000 + power
        elif suit == led_suit:
            key = power
        else:
            continue
        if key > best_key:
            best_pos, best_key = pos, key
    return best_pos


def count(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: ``"1 card"``, ``"3 cards"``, ``"0 tricks"``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
