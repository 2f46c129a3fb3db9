"""Fixtures of the web app's tests: a real server (``python -m play.web`` in a subprocess,
on a free port) and a headless Chromium driven by Playwright. Each test module imports them
(a second ``conftest`` module would shadow ``tests/train/conftest.py``, which tests import
by name).

Playwright's own browser download may be unreachable, so the tests drive the system's
Chromium (``executable_path``); where it is missing, the set-up installs Debian's
``chromium`` with apt-get (CI runs as root), and skips the browser tests if that fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


class Server:
    """``python -m play.web --port 0``: the URL it prints, and its output."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "play.web", "--port", "0"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.output: list[str] = []
        found = threading.Event()
        self.url = ""

        def read() -> None:
            for line in self.proc.stdout:
                self.output.append(line)
                match = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
                if match and not self.url:
                    self.url = match.group(1)
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(120) or not self.url:
            self.stop()
            raise RuntimeError("python -m play.web printed no URL: " + "".join(self.output))

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="session")
def server():
    server = Server()
    yield server
    server.stop()


def system_chromium() -> str | None:
    """The system Chromium, installed with apt-get where it is missing (if that works)."""
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        import fcntl  # POSIX, as apt-get is

        # pytest-xdist's workers each reach here at once on a fresh machine: one installs
        # while the others wait on the lock (apt-get itself would refuse them: dpkg's lock).
        with open(Path(tempfile.gettempdir()) / "feral-envs-chromium.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not any(shutil.which(name) for name in CHROMIUM_NAMES):
                subprocess.run(["apt-get", "update", "-qq"], capture_output=True, timeout=600)
                subprocess.run(
                    ["apt-get", "install", "-y", "-qq", "chromium"],
                    capture_output=True,
                    timeout=900,
                    env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
                )
    return next((shutil.which(name) for name in CHROMIUM_NAMES if shutil.which(name)), None)


@pytest.fixture(scope="session")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    executable = system_chromium()
    if executable is None:
        message = "no Chromium, and apt-get could not install it"
        if os.environ.get("CI"):  # CI must run the browser tests, not skip them
            pytest.fail(message)
        pytest.skip(message)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable,
            headless=True,
            args=["--no-sandbox", "--no-proxy-server", "--disable-gpu"],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
