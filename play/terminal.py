"""Play a game in the terminal against the bots.

    python -m play.terminal lost_heir [--seat south] [--opponents heuristic]
        [--partner random] [--seed 7] [--target-score 20 ...]
    python -m play.terminal hidden_ranks --mode quick

You take one seat (``--seat``, default the first: ``north``, ``red_0`` or ``gold``); every
other seat is a bot given by a policy spec (``agents.registry``): ``--opponents`` for the
other side and, in the card games, ``--partner`` for your partner (each by default
``heuristic`` where the game has that bot, else ``random``). Game keywords
are options (``--variant``, ``--mode``, ``--setup``, ``--target-score``, ...).

Before each of your decisions the terminal shows what your seat may see (the env's text
view from your seat); after each bot decision, what it did, in action names, except what the
rules hide from you (a setup, the cards passed). You type an action name: ``bid 6``,
``H3``, ``take a lead``, ``TH``, ``b2-b5`` (or ``b2 b5``), ``a1`` (a setup square).
``help`` lists the legal ones, ``show`` shows the table again, ``quit`` (or end of input)
leaves. A wrong entry says why and asks again. In a Hidden Ranks setup, ``random`` places
the rest of your army at random and ``bot`` lets the heuristic bot place it. The exit status
is 0 when the game ends or you leave, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

import feral_envs
from feral_envs.cli import add_game_keywords, game_keywords
from play.actions import read_action

COMMANDS = "help (legal actions), show (the table again), quit"
SETUP_SHORTCUTS = ("random", "bot")
"""Hidden Ranks setup shortcuts: the rest of your army placed at random, or by the bot."""


class Quit(Exception):
    """The player left (``quit`` or end of input)."""


# ------------------------------------------------------------------- game-specific words


def hidden_action(raw: Any) -> str | None:
    """What the others are told of the decision about to be made, if the rules hide it
    (Hidden Ranks setup placements, Lost Ranks card passes); None if it is public."""
    game, state = raw.core.name, raw.game
    if game == "hidden_ranks":
        from feral_envs.hidden_ranks.rules import Phase

        if state.phase == Phase.SETUP:
            return "sets up its army (hidden from you)"
    elif game == "lost_ranks":
        from feral_envs.lost_ranks import rules

        if state.phase == rules.Phase.PASS:
            return "chooses the cards it passes (hidden from you)"
    return None


def snapshot(raw: Any) -> tuple:
    """What :func:`news` compares against: the facts of the state before a decision."""
    game, state = raw.core.name, raw.game
    if game == "lost_heir":
        cards = [int(c) for c in state.trick[: state.trick_len]]
        return (state.hands_played, state.phase, cards, state.leader, state.led_city, state.trump)
    if game == "lost_ranks":
        cards = [int(c) for c in state.trick[: state.n_in_trick]]
        scores = tuple(int(v) for v in state.scores)
        return (state.round, state.phase, cards, state.leader, state.led_suit, scores)
    if game == "hidden_ranks":
        return (int(state.removed.sum()),)  # every strike removes a piece
    return (raw.scores,)


def news(raw: Any, before: tuple, action: int) -> list[str]:
    """Public consequences of ``action`` that its name does not tell: a trick won, a hand
    scored, a strike's result; or the scores when they change."""
    game, state = raw.core.name, raw.game
    if game == "lost_heir":
        return _lost_heir_news(state, before, action)
    if game == "lost_ranks":
        return _lost_ranks_news(state, before, action)
    if game == "hidden_ranks":
        return _hidden_ranks_news(state, before)
    if raw.scores != before[0]:
        return ["scores: " + ", ".join(f"{t} {s}" for t, s in raw.scores.items())]
    return []


def _lost_heir_news(state: Any, before: tuple, action: int) -> list[str]:
    from feral_envs.cards import trick_winner
    from feral_envs.lost_heir.encoding import AGENTS, CARD, DECK, PASS, TEAMS
    from feral_envs.lost_heir.rules import Phase

    hands_played, phase, cards, leader, led, trump = before
    lines = []
    if phase == Phase.PLAY and len(cards) == 3 and action >= CARD:
        cards = [*cards, action - CARD]
        winner = (leader + trick_winner(cards, led, trump, DECK)) % len(AGENTS)
        lines.append(f"{AGENTS[winner]} wins the trick")
    if state.hands_played > hands_played and phase == Phase.DEALER and action == PASS:
        lines.append(f"hand {hands_played + 1} is thrown in: nobody bid")
    elif state.hands_played > hands_played:
        change = ", ".join(f"{TEAMS[t]} {int(state.last_hand[t]):+d}" for t in range(2))
        scores = ", ".join(f"{TEAMS[t]} {int(state.scores[t])}" for t in range(2))
        lines.append(f"hand {hands_played + 1} scored: {change}; scores: {scores}")
    return lines


def _lost_ranks_news(state: Any, before: tuple, action: int) -> list[str]:
    from feral_envs.cards import NO_WINNER, trick_winner
    from feral_envs.lost_ranks.rules import AGENTS, ARMY_NAMES, DECK, Phase

    round_number, phase, cards, leader, led, scores = before
    lines = []
    if phase == Phase.PLAY and len(cards) == 3:
        position = trick_winner([*cards, action], led, state.trump_suit, DECK)
        if position == NO_WINNER:
            lines.append(f"a void trick: nobody takes it, {AGENTS[leader]} leads again")
        else:
            lines.append(f"{AGENTS[(leader + position) % len(AGENTS)]} wins the trick")
    if state.round != round_number or state.phase == Phase.GAME_OVER:
        change = ", ".join(
            f"{ARMY_NAMES[a]} {int(state.scores[a]) - scores[a]:+d}" for a in range(2)
        )
        now = ", ".join(f"{ARMY_NAMES[a]} {int(state.scores[a])}" for a in range(2))
        lines.append(f"round {round_number} scored: {change}; scores: {now}")
    return lines


def _hidden_ranks_news(state: Any, before: tuple) -> list[str]:
    from feral_envs.hidden_ranks.rules import (
        AGENTS,
        RANK_NAMES,
        SQUARE_NAMES,
        STRIKE_RESULT_NAMES,
    )

    if int(state.removed.sum()) == before[0]:
        return []
    square, striker, striker_rank, defender_rank, result = (int(v) for v in state.last_strike)
    return [
        f"strike on {SQUARE_NAMES[square]}: {AGENTS[striker]} {RANK_NAMES[striker_rank]} "
        f"against {AGENTS[1 - striker]} {RANK_NAMES[defender_rank]}: {STRIKE_RESULT_NAMES[result]}"
    ]


def in_setup(raw: Any) -> bool:
    """Whether the agent to act is placing its Hidden Ranks army."""
    if raw.core.name != "hidden_ranks":
        return False
    from feral_envs.hidden_ranks.rules import Phase

    return raw.game.phase == Phase.SETUP


def decision_hint(raw: Any) -> str:
    """A line about the decision to make: the next piece to place in a setup."""
    if not in_setup(raw):
        return ""
    from feral_envs.hidden_ranks.rules import RANK_NAMES, SETUP_ORDER

    state = raw.game
    order = SETUP_ORDER[state.config.mode]
    placed = int(state.setup_next[state.to_move])
    return (
        f"place your next piece, {RANK_NAMES[order[placed]]} ({placed + 1} of {len(order)}), "
        f"on an empty square of your home rows (e.g. {raw.legal_action_names()[0]}); "
        f"or type `random` (the rest at random) or `bot` (the bot places the rest)"
    )


# ------------------------------------------------------------------------------ the game


class Table:
    """One game: the env, the human's seat, the bots, and the terminal."""

    def __init__(
        self,
        game: str,
        seat: str | None,
        opponents: str | None,
        partner: str | None,
        seed: int | None,
        keywords: dict[str, Any],
        out: TextIO = sys.stdout,
        read: Any = input,
    ) -> None:
        from agents.arena import game_options

        self.game = game
        self.options = game_options(game, keywords)
        self.env = feral_envs.make(game, render_mode="ansi", **self.options)
        raw = self.env.unwrapped
        self.raw = raw
        agents = raw.possible_agents
        self.human = agents[0] if seat is None else seat
        if self.human not in agents:
            raise ValueError(f"--seat {seat!r} is not a seat of {game}; seats: {', '.join(agents)}")
        raw.render_view = self.human
        self.rules = {k: v for k, v in self.options.items() if k != "reward"}
        self.seed = int(np.random.SeedSequence().entropy % 2**31) if seed is None else seed
        team = raw.team_of_seat[raw.seat_of(self.human)]
        self.partners = [
            a for a in agents if a != self.human and raw.team_of_seat[raw.seat_of(a)] == team
        ]
        if partner is not None and not self.partners:
            raise ValueError(f"{game} has no partners: --partner is for the card games")
        default = None if opponents and (partner or not self.partners) else self._default_spec()
        self.specs = {
            agent: (partner or default) if agent in self.partners else (opponents or default)
            for agent in agents
            if agent != self.human
        }
        self.policies = self._load_policies()
        self.note = (
            f"(no heuristic bot for {game} yet: the default bots play at random)"
            if default == "random"
            else ""
        )
        self.out, self.read = out, read
        self.echo = not _is_terminal(sys.stdin)

    def _default_spec(self) -> str:
        from agents.registry import load_policy

        try:
            load_policy("heuristic", self.game, 0, self.rules)
        except ValueError:
            return "random"
        return "heuristic"

    def _load_policies(self) -> dict[str, Any]:
        from agents.registry import load_policy

        agents = self.raw.possible_agents
        children = np.random.SeedSequence(self.seed).spawn(len(agents))
        policies = {}
        for agent, child in zip(agents, children, strict=True):
            if agent in self.specs:
                seed = int(child.generate_state(1)[0])
                policies[agent] = load_policy(self.specs[agent], self.game, seed, self.rules)
                policies[agent].reset(seed)
        return policies

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def introduce(self) -> None:
        raw = self.raw
        lines = [f"{raw.metadata['name']}: you play {self.human}"]
        if self.partners:
            lines[0] += f" ({raw.team_names[raw.team_of_seat[raw.seat_of(self.human)]]})"
        for agent, spec in self.specs.items():
            role = "partner" if agent in self.partners else "opponent"
            lines.append(f"  {agent}: {spec} ({role})")
        if self.note:
            lines.append(self.note)
        keywords = ", ".join(f"{k}={v!r}" for k, v in self.rules.items())
        lines.append(f"keywords: {keywords}; seed {self.seed} (replay with --seed {self.seed})")
        lines.append(f"Type an action name when asked; commands: {COMMANDS}.")
        self.say("\n".join(lines))

    def play(self) -> int:
        """Play to the end, or until the human leaves. Returns the exit status (0)."""
        env, raw = self.env, self.raw
        self.introduce()
        env.reset(seed=self.seed)
        told = None
        try:
            for agent in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                before = snapshot(raw)
                if agent == self.human:
                    told = None
                    action = self.human_turn()
                else:
                    secret = hidden_action(raw)
                    action = int(self.policies[agent].act(obs["observation"], obs["action_mask"]))
                    text = raw.action_to_string(action)
                    env.step(action)
                    if secret is None:
                        self.say(f"{agent}: {text}")
                    elif (agent, secret) != told:
                        self.say(f"{agent} {secret}")
                    told = (agent, secret) if secret else None
                if action is not None:
                    for line in news(raw, before, action):
                        self.say(f"  {line}")
        except Quit:
            self.say("You left the game.")
            return 0
        self.finish()
        return 0

    def human_turn(self) -> int | None:
        """Show the table, read entries until one is a legal action, and play it. Returns
        the action, or None when a setup shortcut placed several pieces."""
        self.say()
        self.say(self.env.render())
        hint = decision_hint(self.raw)
        if hint:
            self.say(hint)
        while True:
            entry = self.ask()
            command = entry.lower()
            if command in ("help", "?"):
                self.say("legal: " + ", ".join(self.raw.legal_action_names()))
                if in_setup(self.raw):
                    self.say(
                        "or: random (the rest of your army at random), bot (the bot places it)"
                    )
                continue
            if command == "show":
                self.say(self.env.render())
                continue
            if command in SETUP_SHORTCUTS and in_setup(self.raw):
                try:
                    self.place_army(command)
                except ValueError as error:
                    self.say(f"not accepted: {error}")
                    continue
                return None
            try:
                action = read_action(self.raw, entry)
            except ValueError as error:
                self.say(f"not accepted: {error}")
                continue
            self.env.step(action)
            return action

    def ask(self) -> str:
        """The next non-empty entry, spacing normalized and case kept (action names are
        case-insensitive); ``Quit`` on ``quit``/``exit`` or end of input."""
        while True:
            try:
                line = self.read(f"{self.human}> ")
            except EOFError:
                self.say()
                raise Quit from None
            if self.echo:
                self.say(line)
            entry = " ".join(line.split())
            if entry.lower() in ("quit", "exit", "q"):
                raise Quit
            if entry:
                return entry

    def place_army(self, how: str) -> None:
        """Place the rest of the human's Hidden Ranks army with a policy: a random one
        (``random``) or the heuristic bot (``bot``), seeded from the game seed."""
        from agents.registry import load_policy

        spec = "random" if how == "random" else "heuristic"
        policy = load_policy(spec, self.game, self.seed, self.rules)
        policy.reset(self.seed + 1)
        env, raw = self.env, self.raw
        while in_setup(raw) and raw.agent_selection == self.human:
            obs = env.observe(self.human)
            env.step(int(policy.act(obs["observation"], obs["action_mask"])))
        self.say(f"your army is placed ({spec}):")
        self.say(raw.core.render_ansi(raw.game, raw.seat_of(self.human)))

    def finish(self) -> None:
        raw = self.raw
        _, truncated, winner = raw.core.status(raw.game)
        self.say()
        self.say(self.env.render())
        team = raw.team_of_seat[raw.seat_of(self.human)]
        if truncated:
            scores = ", ".join(f"{t} {s}" for t, s in raw.scores.items())
            result = f"stopped by its length cap, no winner (scores: {scores})"
        elif winner < 0:
            result = "a draw"
        else:
            name = raw.team_names[winner]
            result = f"{'you win' if winner == team else 'you lose'} ({name} won)"
        self.say(f"Result: {result}.")


def _is_terminal(stream: Any) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# ------------------------------------------------------------------------- command line


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m play.terminal",
        description="Play a game in the terminal against bots (docs/play.md).",
    )
    parser.add_argument("game", help=f"one of: {', '.join(feral_envs.GAMES)}")
    parser.add_argument("--seat", help="your seat (an agent name; default the first seat)")
    parser.add_argument(
        "--opponents",
        metavar="SPEC",
        help="policy spec of the other side: heuristic (default where the game has one, "
        "else random), random, ppo:PATH",
    )
    parser.add_argument(
        "--partner",
        metavar="SPEC",
        help="card games: your partner's policy spec (default as for --opponents)",
    )
    parser.add_argument("--seed", type=int, help="game seed (default: drawn and printed)")
    add_game_keywords(parser, "game keywords (as the game's env takes them)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    keywords = game_keywords(args)
    try:
        feral_envs.env_module(args.game)
        game = args.game.removesuffix("_v0")
        table = Table(game, args.seat, args.opponents, args.partner, args.seed, keywords)
    except (ValueError, ImportError, FileNotFoundError) as error:
        print(f"{parser.prog}: error: {' '.join(str(error).split())}", file=sys.stderr)
        return 2
    try:
        return table.play()
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the output was closed (`... | head`): the reader has left
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
