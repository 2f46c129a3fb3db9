"""A terminal session of ``python -m play.terminal`` in a real subprocess, driven through its
stdin and stdout pipes (for tests/play)."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60


class Session:
    """``python -m play.terminal ARGS``; :meth:`until` reads up to a marker, :meth:`send`
    types a line."""

    def __init__(self, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "play.terminal", *args],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.chunks: queue.Queue[bytes | None] = queue.Queue()
        self.pending = ""
        self.transcript = ""
        self.ended = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        fd = self.proc.stdout.fileno()
        while True:
            data = os.read(fd, 65536)
            self.chunks.put(data or None)
            if not data:
                return

    def until(self, marker: str) -> tuple[str, bool]:
        """The output up to and including ``marker``, and True; or all the rest of the
        output and False if the program ends first."""
        while marker not in self.pending:
            data = None if self.ended else self.chunks.get(timeout=TIMEOUT)
            if data is None:
                self.ended = True
                text, self.pending = self.pending, ""
                self.transcript += text
                return text, False
            self.pending += data.decode()
        end = self.pending.index(marker) + len(marker)
        text, self.pending = self.pending[:end], self.pending[end:]
        self.transcript += text
        return text, True

    def send(self, line: str) -> None:
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def close_input(self) -> None:
        self.proc.stdin.close()

    def finish(self) -> tuple[int, str, str]:
        """Wait for the end: (exit status, the rest of stdout, stderr)."""
        rest, _ = self.until("\0never\0")
        code = self.proc.wait(timeout=TIMEOUT)
        return code, rest, self.proc.stderr.read().decode()


def legal_names(text: str) -> list[str]:
    """The names of the last ``legal: ...`` line of ``text``."""
    lines = [line for line in text.splitlines() if line.startswith("legal: ")]
    assert lines, f"no legal list in: {text[-500:]}"
    return lines[-1][len("legal: ") :].split(", ")


def play_through(session: Session, prompt: str, first: list[str] | None = None) -> str:
    """Answer every prompt: the ``first`` entries, then ``help`` and the last legal name it
    lists, until the program ends. Returns the transcript."""
    first = list(first or [])
    while True:
        _, alive = session.until(prompt)
        if not alive:
            return session.transcript
        if first:
            session.send(first.pop(0))
            continue
        session.send("help")
        text, alive = session.until(prompt)
        assert alive, session.transcript[-2000:]
        session.send(legal_names(text)[-1])
