"""Hidden Ranks: hide your ranks, find the flag.

A two-player board game of hidden information on a 10 × 10 board with two lakes. Each
player sets up an army of ranked pieces on its home rows, ranks hidden from the other, and
moves one piece a turn; moving onto an enemy piece is a strike that shows both ranks and
removes the lower. Striking the enemy Flag wins. The rules are ``shared/rules/RULES.md``
(section Hidden Ranks); ``docs/hidden_ranks.md`` is the full page, with every point where
the project resolves the original text, and the generated action and observation tables.

| | |
| --- | --- |
| Import | ``from feral_envs import hidden_ranks_v0`` |
| Agents | ``["gold", "silver"]`` (gold sets up first and moves first) |
| Parallel API | no |
| Action space | ``Discrete(3640)`` |
| Observation | ``Box(-inf, inf, (10, 10, 71), float32)``, ``action_mask`` int8 of 3640 |
| Observation values | 0/1 flags; counts: shuttles 1–3, removed pieces 0–8; moves 0–1 |
| Reward | +1 win, −1 loss, 0 draw, at the end |

Arguments
---------
``hidden_ranks_v0.env(mode="full", setup="choose", max_moves=2000, render_mode=None,
reward="win")``

* ``mode``: ``"full"`` (40 pieces each filling the home rows: 10, 9, 8×2, 7×3, 6×4, 5×4,
  4×4, 3×5, 2×8, S, B×6, F) or ``"quick"`` (8 each on any home squares: 10, 9, 3, 2, 2, S,
  B, F).
* ``setup``: ``"choose"`` (a setup phase: gold places its army piece by piece in a fixed
  order, then silver; neither sees the other's) or ``"random"`` (drawn at ``reset``).
* ``max_moves``: the turn limit, in single moves of the play phase (both players together);
  reaching it without a winner is a draw.
* ``render_mode``: ``None``, ``"ansi"`` (the board as text, from the side of the agent to
  act), ``"human"`` (printed) or ``"rgb_array"`` (the board as an ``(H, W, 3)`` uint8
  picture); ``env.unwrapped.render_view`` chooses another side or ``"referee"``.
* ``reward``: ``"win"`` only.

Action space
------------
One ``Discrete(3640)`` in the frame of the agent to act (silver's board turned 180 degrees,
so one policy plays both colours): ``0..39`` place the next piece of the setup order on an
own home square; ``40 + 36 * from + 9 * direction + (distance - 1)`` moves the piece on
square ``from`` ``distance`` squares forward, right, back or left. Names are absolute:
``env.unwrapped.action_to_string(a)`` gives ``"a1"`` or ``"b2-b7"``,
``env.unwrapped.string_to_action("b2-b7")`` the reverse (case-insensitive).

Observation space
-----------------
``(10, 10, 71)`` float32 planes from the observer's side (its home rows at ``r = 0..3``):
own pieces by rank, enemy pieces by public rank or unknown, which pieces have moved, which
own pieces the enemy knows, lakes, each player's last move with its no-shuttling count,
removed pieces by rank, setup progress, and the move count. Plane table:
``docs/hidden_ranks.md`` (generated from ``feral_envs.hidden_ranks.encoding.OBS``).

Starting state
--------------
``reset(seed, options)``: ``options={"setup": {"gold": {"a1": "F", ...}, "silver": {...}}}``
gives a side's setup (that side skips its setup phase); ``options={"position": {"gold":
{"e4": "2", ...}, "silver": {...}}, "to_move": "gold"}`` starts in play from any position of
at most each side's army on non-lake squares. Bad options raise ``ValueError`` naming them.

Episode end
-----------
Termination only: a player strikes the enemy Flag (wins); the player to move has no legal
move (loses, or a draw if the other could not move either); the turn limit is reached
(draw, a rule of the game, hence termination). There is no truncation.

Version history
---------------
* v0: first release.
"""

from feral_envs.hidden_ranks.env import env, raw_env

__all__ = ["env", "raw_env"]
