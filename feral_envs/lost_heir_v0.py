"""Lost Heir: a four-player partnership trick-taking game with bidding and a refusal duel.

North and south play against east and west with a 32-card deck (cities ``T M H W``, ranks
``7`` high down to ``0``). After a round of bids, in which the dealer may refuse the high bid
and duel the bidder for it, the declarer's first lead names trump; eight tricks follow. Each
trick is worth 1 point, capturing the Lost Heir ``W0`` +5, capturing the Wrong Boy ``T0`` −3.
Declarers who reach their contract score their points, otherwise they lose the contract;
defenders score their points, never below 0. The first team to 40 wins.

The full page, with the rules as implemented, every resolution of the original text and the
generated action and observation tables, is ``docs/lost_heir.md``.

==================== =====================================================================
Import               ``from feral_envs import lost_heir_v0``
Agents               ``["north", "east", "south", "west"]``; teams ``north_south``,
                     ``east_west``
Action space         ``Discrete(47)``
Observation space    ``Dict(observation=Box(-inf, inf, (743,), float32),
                     action_mask=Box(0, 1, (47,), int8))``
==================== =====================================================================

Arguments
---------
``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the table as text), ``"human"``
(prints it) or ``"rgb_array"`` (the table as an ``(H, W, 3)`` uint8 picture); the view is the
agent to act's unless ``env.unwrapped.render_view`` names another agent or ``"referee"``.
``reward``: ``"win"`` (default) or ``"points"``. ``target_score``: int >= 1, default 40.
``take_a_lead``: ``"after_first_trick"`` (default: only the declarer's opening lead cannot be
handed over) or ``"after_second_trick"`` (the first trick's winner cannot hand it over
either). ``max_hands``: int >= 1, default 100, the truncation cap (thrown-in hands
count). Bad values raise ``ValueError``.

Action space
------------
0 ``pass``; 1–9 ``bid 4`` … ``bid 12``; 10 ``accept``; 11 ``refuse``; 12 ``raise``;
13 ``concede``; 14 ``take a lead``; 15–46 the cards ``T0`` … ``T7``, ``M0`` … ``M7``,
``H0`` … ``H7``, ``W0`` … ``W7`` (action 15 + 8 · city + rank). ``action_mask`` marks the
legal actions of the agent to act; ``env.unwrapped.string_to_action("bid 7")`` and
``action_to_string`` convert names (case-insensitive). An illegal action raises
``ValueError`` listing the legal ones and changes nothing.

Observation space
-----------------
Ego-centric (seats: me, left, partner, right; teams: mine, theirs), everything the seat may
know and nothing else: own hand, cards played by each seat and the trick of each, the current
trick, trump, the bidding and duel record, contract and declarer, turn and dealer, this hand's
tricks and points, the game scores (raw and divided by ``target_score``), hands played and
left. Index-by-index table: ``docs/lost_heir.md``.

Starting state
--------------
``reset(seed, options)``; options (all optional): ``"dealer"`` (agent name), ``"hands"``
(all four seats, 8 distinct card names each), ``"scores"`` (both teams, below the target).
Otherwise the dealer is drawn and the cards dealt from the seed, as are all later hands.

Rewards
-------
``"win"``: +1 to the winning team's agents and −1 to the others at the end of the game, 0
otherwise (a truncated game gives 0). ``"points"``: at the step that ends a hand, each agent
gets its team's score change minus the other team's.

Episode end
-----------
Termination: a team has ``target_score`` or more after a hand (both: the declaring team
wins). Truncation: ``max_hands`` hands finished without a winner.

Version history
---------------
* v0: first release.
"""

from feral_envs.lost_heir.env import env, raw_env

__all__ = ["env", "raw_env"]
