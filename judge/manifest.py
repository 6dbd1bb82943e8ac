"""Provenance for every run folder: what ran, with which settings, code and data, at what cost."""

from __future__ import annotations

import platform
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from judge import __version__
from judge.config import AppSettings
from judge.llm.pricing import Ledger

MANIFEST_VERSION = 1
_PACKAGES = ("openai", "anthropic", "pydantic", "tenacity")


def git_revision() -> str | None:
    """The checkout's commit (with `-dirty` for local edits); None outside a checkout."""
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {
        "rubric-judge": __version__,
        "python": platform.python_version(),
    }
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def build_manifest(
    command: str,
    settings: AppSettings,
    inputs: dict[str, Any],
    counts: dict[str, Any],
    ledger: Ledger,
) -> dict[str, Any]:
    return {
        "format_version": MANIFEST_VERSION,
        "command": command,
        "created_at": datetime.now(UTC).isoformat(),
        "git_revision": git_revision(),
        "versions": package_versions(),
        "inputs": inputs,
        "settings": settings.model_dump(mode="json"),
        "counts": counts,
        "usage": ledger.as_dict(),
    }
