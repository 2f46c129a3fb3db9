"""Pictures of whole games: animated GIFs or numbered PNGs, from live play or arena records.

    python -m play.recording RECORD.jsonl [--game-index 0] --out game.gif
    python -m play.recording --game hidden_ranks --policies heuristic random \\
        --mode quick --seed 3 --out game.gif

The frames are the games' ``rgb_array`` pictures (:mod:`feral_envs.drawing`): one after the
reset and one after every action, seen by the referee (``--view referee``, the default), by
one agent (``--view south``) or by the agent to act (``--view acting``). An arena record
(``records.jsonl``, see ``docs/arena.md``) is replayed from its env seed and actions; live
games are played by policy specs (``agents.registry``). ``--out`` ending in ``.gif`` writes
an animated GIF, anything else a folder of PNGs. ``--start``, ``--stop`` and ``--every``
choose the frames (by action number); ``--max-frames`` caps them (GIF frames are held in
memory until the file is written).

From Python: :func:`frames_from_policies`, :func:`frames_from_actions`,
:func:`frames_from_record`, :func:`read_record`, :func:`save_gif`, :func:`save_pngs`.
Drawing the frames needs only numpy; writing files needs Pillow
(``pip install "feral-envs[render]"``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import feral_envs
from feral_envs.cli import add_game_keywords, game_keywords

VIEWS_HELP = "'referee' (everything), an agent name, or 'acting' (the agent to act)"
PILLOW_MISSING = (
    "writing PNG or GIF files needs Pillow, which is not installed: "
    "pip install 'feral-envs[render]' (or pip install pillow)"
)


def _pillow() -> Any:
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(PILLOW_MISSING) from None
    return Image


# ----------------------------------------------------------------------------- frames


def picture(env: Any, view: str = "referee") -> np.ndarray:
    """The env's table as an ``(H, W, 3)`` uint8 picture, whatever its ``render_mode``.

    ``view``: ``"referee"`` (everything shown), an agent name, or ``"acting"`` (the agent
    to act; the referee once the game is over).
    """
    raw = env.unwrapped
    if raw.core.render_rgb is None:
        raise ValueError(f"{raw.core.name} has no pictures")
    if raw.game is None:
        raise ValueError("no game to draw yet: reset the env first")
    return raw.core.render_rgb(raw.game, _view_seat(raw, view))


def _view_seat(raw: Any, view: str) -> int | None:
    if view == "referee":
        return None
    if view == "acting":
        return raw.seat_of(raw.agent_selection) if raw.agents else None
    if view not in raw.possible_agents:
        raise ValueError(
            f"view {view!r} is not allowed; choose 'referee', 'acting' or an agent: "
            + ", ".join(raw.possible_agents)
        )
    return raw.seat_of(view)


def frames_from_policies(
    env: Any,
    policies: Sequence[Any] | Mapping[str, Any],
    seed: int | None = None,
    view: str = "referee",
    policy_seeds: Sequence[int] | None = None,
    actions: list[int] | None = None,
) -> Iterator[np.ndarray]:
    """Play one game on ``env`` with ``policies`` and yield its pictures.

    ``policies``: one :class:`agents.base.Policy` per seat, in seat order, or a dict by
    agent name. The env is reset with ``seed``; each policy with its ``policy_seeds`` entry
    (default: drawn from ``seed``). A picture follows the reset and every action; the
    actions taken are appended to ``actions`` if a list is given.
    """
    raw = env.unwrapped
    if isinstance(policies, Mapping):
        policies = [policies[agent] for agent in raw.possible_agents]
    if len(policies) != len(raw.possible_agents):
        raise ValueError(
            f"{len(policies)} policies for {len(raw.possible_agents)} seats; give one per seat"
        )
    if policy_seeds is None:
        children = np.random.SeedSequence(seed).spawn(len(policies))
        policy_seeds = [int(c.generate_state(1)[0]) for c in children]
    env.reset(seed=seed)
    for policy, policy_seed in zip(policies, policy_seeds, strict=True):
        policy.reset(int(policy_seed))
    yield picture(env, view)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = int(policies[raw.seat_of(agent)].act(obs["observation"], obs["action_mask"]))
        env.step(action)
        if actions is not None:
            actions.append(action)
        yield picture(env, view)


def frames_from_actions(
    env: Any, seed: int | None, actions: Iterable[int], view: str = "referee"
) -> Iterator[np.ndarray]:
    """Replay ``actions`` on ``env`` after ``reset(seed=seed)``, yielding a picture after the
    reset and after every action. ``ValueError`` if an action is illegal or comes after the
    end (a record of another version of the game)."""
    env.reset(seed=seed)
    raw = env.unwrapped
    yield picture(env, view)
    for number, action in enumerate(actions):
        if not raw.agents or raw.terminations[raw.agent_selection]:
            raise ValueError(f"the game is over before action {number} ({action}): not a replay")
        if raw.truncations[raw.agent_selection]:
            raise ValueError(f"the game is over before action {number} ({action}): not a replay")
        try:
            env.step(int(action))
        except ValueError as error:
            raise ValueError(f"action {number} does not replay: {error}") from None
        yield picture(env, view)


def read_record(path: str | Path, game_index: int = 0) -> dict[str, Any]:
    """Game ``game_index`` (0 = the first line) of an arena ``records.jsonl``."""
    lines = [line for line in Path(path).read_text().splitlines() if line.strip()]
    if not 0 <= game_index < len(lines):
        raise ValueError(
            f"{path} holds {len(lines)} game(s); the game index must be 0..{len(lines) - 1}, "
            f"got {game_index}"
        )
    try:
        record = json.loads(lines[game_index])
    except json.JSONDecodeError:
        raise ValueError(f"{path}: line {game_index + 1} is not a JSON record") from None
    missing = [key for key in ("game", "options", "env_seed", "actions") if key not in record]
    if missing:
        raise ValueError(f"{path}: game {game_index} lacks {', '.join(missing)}: not a record")
    return record


def frames_from_record(record: Mapping[str, Any], view: str = "referee") -> Iterator[np.ndarray]:
    """The pictures of an arena game record, replayed from its env seed and actions.

    After the last action the replay must have ended as the record says (``end``),
    otherwise ``ValueError``."""
    env = feral_envs.make(record["game"], **record["options"])
    yield from frames_from_actions(env, record["env_seed"], record["actions"], view)
    raw = env.unwrapped
    agent = raw.agent_selection
    ended = raw.terminations[agent] or raw.truncations[agent]
    end = "terminated" if raw.terminations[agent] else "truncated" if ended else "running"
    if "end" in record and end != record["end"]:
        raise ValueError(
            f"the replay is {end} after {len(record['actions'])} actions, the record says "
            f"{record['end']}: a record of another version of the game?"
        )


def select(
    frames: Iterable[np.ndarray],
    start: int = 0,
    stop: int | None = None,
    every: int = 1,
    max_frames: int | None = None,
) -> Iterator[np.ndarray]:
    """Frames ``start``, ``start + every``, … before ``stop`` (frame ``k`` follows action
    ``k``; frame 0 the reset), always with the range's last frame, at most ``max_frames``."""
    if start < 0 or every < 1 or (stop is not None and stop <= start):
        raise ValueError(f"bad frame range: start={start}, stop={stop}, every={every}")
    if max_frames is not None and max_frames < 1:
        raise ValueError(f"max_frames must be >= 1, got {max_frames}")
    kept = 0
    pending = None
    for number, frame in enumerate(frames):
        if stop is not None and number >= stop:
            break
        if number < start:
            continue
        if (number - start) % every == 0:
            pending = None
            yield frame
            kept += 1
            if max_frames is not None and kept >= max_frames:
                return
        else:
            pending = frame
    if pending is not None:
        yield pending


# ------------------------------------------------------------------------------ files


class Palette:
    """The colours seen so far in a run of pictures, each with its palette index.

    A picture maps to palette indices through a table over all 2**24 colours, so a frame
    costs one gather instead of a sort; new colours are added as they appear, up to 256.
    """

    def __init__(self) -> None:
        self.index_of = np.full(1 << 24, -1, dtype=np.int16)
        self.colors: list[int] = []

    def indices(self, frame: np.ndarray) -> np.ndarray | None:
        """The ``(H, W)`` uint8 palette indices of ``frame``; None if the palette would
        need more than 256 colours."""
        packed = (
            frame[..., 0].astype(np.int32) << 16
            | frame[..., 1].astype(np.int32) << 8
            | frame[..., 2].astype(np.int32)
        )
        index = self.index_of[packed]
        missing = index < 0
        if missing.any():
            new = np.unique(packed[missing])
            if len(self.colors) + len(new) > 256:
                return None
            self.index_of[new] = np.arange(len(self.colors), len(self.colors) + len(new))
            self.colors.extend(new.tolist())
            index = self.index_of[packed]
        return index.astype(np.uint8)

    def rgb(self) -> list[int]:
        """The palette as Pillow's flat ``[r, g, b, r, g, b, ...]`` list."""
        return [part for c in self.colors for part in (c >> 16, c >> 8 & 255, c & 255)]


def to_palette_image(frame: np.ndarray, palette: Palette | None = None) -> Any:
    """``frame`` as a Pillow palette ("P") image: exact when ``palette`` (a fresh one by
    default) holds its colours in at most 256 (every game picture), else quantized."""
    Image = _pillow()
    palette = palette or Palette()
    index = palette.indices(frame)
    if index is None:
        return Image.fromarray(frame).quantize(256)
    image = Image.fromarray(index, mode="P")
    image.putpalette(palette.rgb())
    return image


def save_png(frame: np.ndarray, path: str | Path, palette: Palette | None = None) -> Path:
    """One picture as a PNG file."""
    path = Path(path)
    to_palette_image(frame, palette).save(path, optimize=True)
    return path


def save_pngs(
    frames: Iterable[np.ndarray], folder: str | Path, prefix: str = "frame"
) -> list[Path]:
    """Each frame as ``folder/prefix_00000.png``, ``…_00001.png``, …; the paths written."""
    _pillow()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    palette = Palette()
    return [
        save_png(frame, folder / f"{prefix}_{i:05d}.png", palette) for i, frame in enumerate(frames)
    ]


def save_gif(
    frames: Iterable[np.ndarray], path: str | Path, fps: float = 2.0, hold_last: float = 3.0
) -> int:
    """An animated GIF of ``frames`` (looping), ``fps`` frames a second, the last one held
    ``hold_last`` seconds. Returns the number of frames given (Pillow stores identical
    consecutive frames as one longer frame)."""
    _pillow()
    if fps <= 0:
        raise ValueError(f"fps must be > 0, got {fps}")
    images = []
    palette = Palette()
    for frame in frames:
        image = to_palette_image(frame, palette)
        image.info["duration"] = round(1000 / fps)
        images.append(image)
    if not images:
        raise ValueError("no frames to write")
    images[-1].info["duration"] = max(round(1000 * hold_last), images[-1].info["duration"])
    images[0].save(
        Path(path), save_all=True, append_images=images[1:], loop=0, duration=None, optimize=False
    )
    return len(images)


# ----------------------------------------------------------------------- command line


def _live_policies(game: str, specs: Sequence[str], keywords: dict[str, Any], raw: Any) -> list:
    """One policy per seat from ``specs``: one spec for all seats, one per team, or one per
    seat."""
    from agents.registry import load_policy

    seats, teams = len(raw.possible_agents), raw.team_of_seat
    if len(specs) == seats:
        per_seat = list(specs)
    elif len(specs) == 2:
        per_seat = [specs[teams[s]] for s in range(seats)]
    elif len(specs) == 1:
        per_seat = [specs[0]] * seats
    else:
        raise ValueError(
            f"--policies takes 1, 2 (one per team) or {seats} (one per seat) specs, "
            f"got {len(specs)}"
        )
    return [load_policy(spec, game, 0, keywords) for spec in per_seat]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m play.recording",
        description="Save a game's pictures as an animated GIF or numbered PNGs: an arena "
        "record replayed, or a game played now by policies.",
    )
    parser.add_argument("record", nargs="?", help="an arena records.jsonl to replay")
    parser.add_argument("--game-index", type=int, default=0, help="game (line) of the record")
    parser.add_argument("--game", help=f"play a new game instead: {', '.join(feral_envs.GAMES)}")
    parser.add_argument(
        "--policies",
        nargs="+",
        metavar="SPEC",
        help="with --game: policy specs, one for all seats, one per team or one per seat "
        "(default: random)",
    )
    parser.add_argument("--seed", type=int, default=0, help="with --game: env and policy seed")
    parser.add_argument("--out", required=True, help="FILE.gif, or a folder for PNGs")
    parser.add_argument("--view", default="referee", help=VIEWS_HELP)
    parser.add_argument("--fps", type=float, default=2.0, help="GIF frames per second")
    parser.add_argument("--start", type=int, default=0, help="first frame (action number)")
    parser.add_argument("--stop", type=int, help="stop before this frame")
    parser.add_argument("--every", type=int, default=1, help="keep every k-th frame")
    parser.add_argument(
        "--max-frames", type=int, default=500, help="at most this many frames (default 500)"
    )
    add_game_keywords(parser, "game keywords with --game (as the game's env takes)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if (args.record is None) == (args.game is None):
        parser.error("give either a RECORD to replay or --game to play a new game")
    try:
        frames = _frames(args)
        frames = select(frames, args.start, args.stop, args.every, args.max_frames)
        out = Path(args.out)
        if out.suffix.lower() == ".gif":
            count = save_gif(frames, out, fps=args.fps)
        else:
            count = len(save_pngs(frames, out))
    except (ValueError, FileNotFoundError, ImportError) as error:
        message = " ".join(str(error).split())
        print(f"{parser.prog}: error: {message}", file=sys.stderr)
        return 2
    note = ""
    if count == args.max_frames:
        note = f" (--max-frames {args.max_frames}: --start, --every and --max-frames choose others)"
    print(f"wrote {count} frame(s) to {out}{note}")
    return 0


def _frames(args: argparse.Namespace) -> Iterator[np.ndarray]:

    keywords = game_keywords(args)
    if args.record is not None:
        if keywords or args.policies:
            raise ValueError("a replayed record brings its own game keywords and policies")
        return frames_from_record(read_record(args.record, args.game_index), args.view)
    from agents.arena import game_options

    options = game_options(args.game, keywords)
    env = feral_envs.make(args.game, **options)
    rules = {k: v for k, v in options.items() if k != "reward"}
    policies = _live_policies(args.game, args.policies or ["random"], rules, env.unwrapped)
    _view_seat(env.unwrapped, args.view)  # a bad view fails before any game is played
    return frames_from_policies(env, policies, seed=args.seed, view=args.view)


if __name__ == "__main__":
    sys.exit(main())
