"""Regenerate the generated tables in ``docs/<game>.md`` from the encodings.

Each page holds blocks between ``<!-- BEGIN GENERATED: key -->`` and
``<!-- END GENERATED: key -->``; the text of block ``key`` comes from the game package's
``encoding.DOC_TABLES[key]()``. ``python -m feral_envs.docgen`` rewrites them;
``python -m feral_envs.docgen --check`` exits 1 if any page is out of date (a test runs it).
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

from feral_envs import GAMES

DOCS = Path(__file__).resolve().parent.parent / "docs"
BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<key>[\w-]+) -->\n)(?P<body>.*?)(<!-- END GENERATED: (?P=key) -->)",
    re.S,
)


def render_page(game: str, text: str) -> str:
    """``text`` with every generated block of ``game``'s page rewritten from the code."""
    tables = importlib.import_module(f"feral_envs.{game}.encoding").DOC_TABLES

    def fill(match: re.Match) -> str:
        key = match["key"]
        if key not in tables:
            raise KeyError(f"docs/{game}.md has a block {key!r} that {game}.encoding lacks")
        return f"{match.group(1)}{tables[key]().rstrip()}\n{match.group(4)}"

    return BLOCK.sub(fill, text)


def stale_pages(write: bool) -> list[str]:
    stale = []
    for game in GAMES:
        page = DOCS / f"{game}.md"
        try:
            importlib.import_module(f"feral_envs.{game}.encoding")
        except ModuleNotFoundError:
            continue
        if not page.exists():
            stale.append(f"{page} (missing)")
            continue
        old = page.read_text()
        new = render_page(game, old)
        if new != old:
            stale.append(str(page))
            if write:
                page.write_text(new)
    return stale


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = stale_pages(write=not check)
    for page in stale:
        print(("out of date: " if check else "rewrote: ") + page)
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
