"""Lost Ranks: a four-player partnership trick-taking game where only Jacks and the Spy score.

The Red Army (``red_0``, ``red_1``) plays the Black Army (``black_0``, ``black_1``) with a
53-card deck. Each round a Trump Card is flipped (its suit is trump; the two Jacks of its
colour are *Active*), 13 cards are dealt to each player, every player passes three cards
(two to its partner, one to an enemy), and 13 tricks are played. Jacks follow suit but never
win; the suitless Spy may be played only when void and lead only as a last card. A trick
with no trump and no Infantry of the led suit is *void*. An Active Jack rescued by its own
army is worth +2, the captured Spy +2 (by ``variant``). First army to 18 wins; after round 6
the higher score wins; ties get one tiebreaker round, then a draw.

Full rules as implemented, with every reading of the original text: ``docs/lost_ranks.md``.

=================== =============================================================
Import              ``from feral_envs import lost_ranks_v0``
Agents              ``red_0``, ``black_0``, ``red_1``, ``black_1`` (seats 0-3)
Teams               red (seats 0, 2), black (seats 1, 3)
Action space        ``Discrete(53)``
Observation space   ``Dict(observation=Box(-inf, inf, (914,), float32),
                    action_mask=Box(0, 1, (53,), int8))``
Parallel API        no (AEC only)
=================== =============================================================

Arguments
---------
``env(render_mode=None, reward="win", variant="standard")``

* ``variant``: how the captured Spy scores: ``"standard"`` +2 to the capturing army;
  ``"master_of_spies"`` +2 only to the army of the Trump Card's colour, 0 to the other;
  ``"turncoat"`` +2 to the Trump Card's colour, +1 to the other.
* ``reward``: ``"win"`` or ``"points"`` (see Rewards).
* ``render_mode``: ``"ansi"`` (``render()`` returns the table as text), ``"human"``
  (printed after every step) or ``"rgb_array"`` (the table as an ``(H, W, 3)`` uint8
  picture); the view is the agent to act's unless ``env.unwrapped.render_view`` names another
  agent or ``"referee"``.

``raw_env`` takes the same arguments; ``env`` is ``raw_env`` inside PettingZoo's
``OrderEnforcingWrapper`` only (``raw_env`` checks every action itself).

Action space
------------
Action ``a`` is card ``a``: ids ``13 * suit + rank`` with suits ``S H D C`` and ranks
``2 3 4 5 6 7 8 9 T J Q K A`` in that order, then ``52`` for ``SPY``. In the pass phase an
action chooses that card to pass (a player's 1st and 2nd choices go to its partner, the 3rd
to the enemy of the round; seats choose in order 0, 1, 2, 3 and the cards change hands after
the last choice); in play it plays the card. ``env.unwrapped.string_to_action("7S")`` and
``action_to_string`` convert names (case-insensitive); an illegal action or unknown name
raises ``ValueError`` listing the legal cards.

Observation space
-----------------
``observe(agent)`` returns ``{"observation": float32[914], "action_mask": int8[53]}``. The
vector is ego-centric (me, left, partner, right; my army, theirs): own hand, the Trump Card,
round, tiebreaker, pass direction, scores, the phase and pass step, the cards the observer
passed and received, every card each seat has played this round, the current trick and its
leader and led suit, both capture piles, the void pile, the Jacks played by each seat and
the suits each seat has shown it lacks (``voids_shown``).
Index by index: ``docs/lost_ranks.md`` (generated from ``feral_envs.lost_ranks.encoding.OBS``).
The action mask is all zeros except for the agent to act.

Rewards
-------
* ``reward="win"``: at the end of the game +1 to each player of the winning army, -1 to the
  losers, 0 on a draw; 0 at every other step.
* ``reward="points"``: after each round every player gets its army's points of the round
  minus the other army's; nothing more at the end.

``env.unwrapped.scores`` gives the game score by army.

Starting state
--------------
``reset(seed, options)``: the Trump Card and the deal come from ``seed``. ``options`` may
fix ``trump_card`` (``"7S"``), ``hands`` (13 card names per agent, 52 distinct, without the
Trump Card), ``round`` (1-7), ``scores`` (``{"red": 0, "black": 0}``) and ``start``
(``"pass"``, or ``"play"`` to skip the first round's pass); invalid options raise
``ValueError`` naming the problem.

Episode end
-----------
Termination when the game is won or drawn (after round 6 at the latest, or after one
tiebreaker round). No truncation.

Version history
---------------
* v0: first release.
"""

from feral_envs.lost_ranks.env import env, raw_env

__all__ = ["env", "raw_env"]
