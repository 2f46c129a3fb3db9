"""The compiled rules engine: one numba implementation of each game's rules.

Each game's rules are written once, in ``feral_envs/<game>/engine.py``, as small
``@njit(cache=True)`` functions over a *state row*: one int32 numpy array per game, laid out
by named spans (:class:`~feral_envs.layout.Layout`, the module's ``STATE``). A batch of games
is a 2-D array with one row per game; a clone is a copy; a state can be hashed, saved and
compared byte for byte. ``NUMBA_DISABLE_JIT=1`` runs the same source as plain Python.

Every row starts with its random stream (:mod:`feral_envs.engine.rng`, entries ``0 .. 3``),
then the game's keywords (so that a row is a whole game), then the game's fields.

What each game's ``engine`` module provides (the same names in every game):

* ``STATE`` (the row's layout), ``N_ACTIONS``, ``N_SEATS``, ``OBS_SHAPE``, ``OBS_SIZE``
  (``prod(OBS_SHAPE)``: observations are written flat), ``TEAM_OF_SEAT`` (int64 array);
* ``start(row, config, options)``, plain Python: validates the ``reset`` options
  (``ValueError`` naming the problem, the row untouched), writes the keywords and starts a
  game from the row's stream words (which the caller has set);
* single-game kernels: ``new_game(row)`` (a random game from the keywords and the stream
  already in the row), ``legal_mask(row, out)``, ``is_legal(row, action)``,
  ``apply(row, action)`` (a legal action), ``observe(row, seat, out)``, ``to_act(row)``,
  ``status(row) -> (terminated, truncated, winner)``, ``score(row, team)``;
* the AEC env's two per-step calls (:mod:`feral_envs.table_env`), one kernel call each:
  ``play(row, action)`` (-1 and the row unchanged if ``action`` is illegal, else ``apply``
  and return the seat to act, or ``N_SEATS`` once the game is over) and
  ``observe_masked(row, seat, to_act, obs, mask)`` (``observe``, and the legal mask if
  ``to_act``, else zeros);
* ``COMPACT_DTYPES`` (optional; the integer observation dtypes :mod:`feral_envs.vector`
  offers, with ``COMPACT_RECODED``, the entries whose compact value is not the float32 one);
* ``LEGAL`` (optional; Hidden Ranks): the layout of a per-game int32 legal-action cache.
  :mod:`feral_envs.vector` then holds one per game and passes the ``(n, LEGAL.size)`` array
  as the last argument of ``step_batch``, ``reset_batch`` and ``random_batch``: the first two
  fill it as they write the masks, the last draws from it, so a step of
  ``step(random_actions())`` runs the move generator once. A cache holds only while its
  game's row equals the row it was filled from (checked entry for entry), so a draw never
  depends on it;
* batch kernels over ``rows`` (``prange`` over the games; each compiled on numba's threads and
  on one thread, run on threads from ``PARALLEL_FROM`` games on, :mod:`.batch`), used by
  :mod:`feral_envs.vector`: ``step_batch``, ``reset_batch``, ``random_batch``,
  ``first_illegal``, ``observe_batch(rows, seats, obs)``, ``masks_batch(rows, masks)``;
  and by the self-play training env (:mod:`train.vec_env`), which steps its games one round
  of decisions at a time: ``status_batch(rows, seats, terminated, truncated, winners)``
  (each game's ``to_act`` and ``status``), ``apply_batch(rows, actions)`` (``apply`` where
  ``actions[i] >= 0``, the other games left as they are), ``scores_batch(rows, scores)``
  (``scores[i, team] = score(rows[i], team)``).
"""

import os

import numba

if "NUMBA_THREADING_LAYER" not in os.environ:
    # The batch kernels' threads: numba's default layer is OpenMP, whose threads spin while
    # they wait. Beside a learner's own threads, or on shared cores, that made two threads
    # slower than one (measured on 2 cores under load: Lost Heir 0.44M agent-steps/s with
    # OpenMP against 1.49M with workqueue). Set NUMBA_THREADING_LAYER to choose another.
    numba.config.THREADING_LAYER = "workqueue"
