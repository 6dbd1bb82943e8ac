"""Where the bundled `configs/` and `prompts/` live, in a checkout and in an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # the `judge` package


def _bundled(folder: str) -> Path:
    """A source checkout keeps the folder at the repository root; a wheel copies it inside."""
    in_checkout = _PACKAGE.parent / folder
    return in_checkout if in_checkout.is_dir() else _PACKAGE / "_bundled" / folder


def config_path(name: str) -> Path:
    return _bundled("configs") / name


def prompt_path(name: str) -> Path:
    return _bundled("prompts") / name
