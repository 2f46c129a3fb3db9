"""docs/training.md's option table is generated from train/config.py and current."""

from __future__ import annotations

from pathlib import Path

from train.config import DOCS_PAGE, render_docs

ROOT = Path(__file__).resolve().parents[2]


def test_option_table_is_current():
    text = (ROOT / DOCS_PAGE).read_text()
    assert "<!-- BEGIN GENERATED: train-config -->" in text
    assert render_docs(text) == text, "run `python -m train.config` to update docs/training.md"
