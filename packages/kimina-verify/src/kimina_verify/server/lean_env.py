"""Which Lean environment the server's REPLs run, as reported by `/health` and used in clients' cache keys."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from kimina_verify.environment import STAND_IN
from kimina_verify.server.settings import ServerSettings

logger = logging.getLogger(__name__)

SIM_MARKERS = (STAND_IN, "kimina_verify.sim")
"""How a REPL command names the stand-in: its script, or `python -m kimina_verify.sim`."""


def describe_lean_env(settings: ServerSettings) -> str | None:
    """An id of the REPLs' Lean environment: results from two servers with the same id are interchangeable.

    `lean-repl-sim/<version> <its arguments>` for the test double; for a REPL in a Lean workspace, its toolchain and
    Mathlib revision (`leanprover/lean4:v4.15.0 mathlib@<rev>`) from `lean-toolchain` and `lake-manifest.json`; else
    the configured `lean_version`, else None.
    """
    command = settings.command
    for i, arg in enumerate(command):
        if Path(arg).name in SIM_MARKERS or arg in SIM_MARKERS:
            from kimina_verify import __version__

            return " ".join((f"{STAND_IN}/{__version__}", *command[i + 1 :]))
    return workspace_lean_env(Path(settings.cwd or ".")) or settings.lean_version


def workspace_lean_env(workspace: Path) -> str | None:
    """`<toolchain> mathlib@<rev>` for a Lean workspace (either part when known), or None when it is not one."""
    parts = []
    try:
        toolchain = (workspace / "lean-toolchain").read_text(encoding="utf-8").strip()
    except OSError:
        toolchain = ""
    if toolchain:
        parts.append(toolchain)
    rev = _mathlib_rev(workspace / "lake-manifest.json")
    if rev:
        parts.append(f"mathlib@{rev}")
    return " ".join(parts) or None


def _mathlib_rev(manifest: Path) -> str | None:
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        logger.warning("cannot read %s (%s); the Mathlib revision is unknown", manifest, exc)
        return None
    packages = data.get("packages") if isinstance(data, dict) else None
    for package in packages if isinstance(packages, list) else ():
        if isinstance(package, dict) and str(package.get("name", "")).lower() == "mathlib" and package.get("rev"):
            return str(package["rev"])
    return None
