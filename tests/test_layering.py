"""The layers import downwards only: apps (``play``, ``train``) above bots (``agents``) above envs
(``feral_envs``). Checked by reading every module's imports, top-level and inside functions."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {
    "feral_envs": {"agents", "train", "play"},
    "agents": {"play", "train"},
    "train": {"play"},
}


def imported_packages(path: Path) -> set[str]:
    """The top-level packages that ``path`` imports anywhere (absolute imports only)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.add(node.args[0].value.split(".")[0])
    return found


def test_imported_packages_sees_nested_and_dynamic_imports(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import os\ndef f():\n    from agents.registry import load_policy\n"
        "    import importlib\n    importlib.import_module('train.run')\n"
        "from . import sibling\n"
    )
    assert imported_packages(module) == {"os", "agents", "importlib", "train"}


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_upward_imports(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"no modules under {package}/"
    wrong = {
        str(path.relative_to(ROOT)): sorted(imported_packages(path) & FORBIDDEN[package])
        for path in files
    }
    wrong = {path: names for path, names in wrong.items() if names}
    assert not wrong, f"{package} imports from a layer above it: {wrong}"


def test_playing_a_trained_policy_needs_no_training_code() -> None:
    # The networks and their loaders (agents/networks, agents/ppo.py) are torch without SB3.
    code = (
        "import sys, agents.ppo, agents.networks.board, agents.networks.cards\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'train', 'stable_baselines3', 'sb3_contrib'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout
