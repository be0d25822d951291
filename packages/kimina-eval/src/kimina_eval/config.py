"""A run's settings, saved as ``run.json`` beside its samples so a resume and a report know what was run."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kimina_data.config import ConfigError as ConfigError  # re-exported: one error class for configurations
from kimina_format.prompts import PROMPT_TEMPLATES
from kimina_verify.attempts import FIRST_TURN
from kimina_verify.config import parse_config

from kimina_eval.engines.base import SamplingParams
from kimina_eval.store import LEGACY_FIRST_TURN

__all__ = [
    "ConfigError",
    "RUN_FILE",
    "RunConfig",
    "SAMPLES_FILE",
    "check_resumable",
    "load_config",
    "load_first_turn",
    "load_settings",
    "read_settings",
    "refuse_changes",
    "save_config",
    "save_settings",
]

RUN_FILE = "run.json"
SAMPLES_FILE = "samples.jsonl"
_FIRST_TURN_KEY = "first_turn"
"""The ``run.json`` key naming how ``samples.jsonl`` numbers turns (`FIRST_TURN`, 1); absent: a pre-0.6 run, 0."""

# Settings that change what a sample means; a resume must keep them. n, limit and fix_turns may grow.
_IDENTITY = ("model", "engine", "dataset", "split", "template", "rectified", "sampling")


# One configuration error for the workspace (kimina-data owns it): a run directory holding a different run, a
# ``run.json`` that cannot be read and a setting out of range all raise it.


@dataclass(frozen=True)
class RunConfig:
    """What an evaluation run samples and how.

    Attributes:
        model: Model path, hub name, or server URL.
        engine: Engine kind (see `kimina_eval.engines.ENGINES`).
        name: Label of the run in reports; defaults to the model's last path component.
        dataset: ``"minif2f"`` or a path to a miniF2F-style JSONL file.
        split: ``valid`` or ``test``.
        n: Samples per problem.
        fix_turns: 0, or 1 for one error-fix turn per failed first attempt.
        template: Prompt template of `kimina_format.prompts.build_messages`.
        rectified: Whether corrected statements replace the original ones where available (the default: the set
            upstream's published numbers used, see `kimina_data.minif2f_problems.DEFAULT_STATEMENTS`).
        limit: Only the first ``limit`` problems, or None for all.
        sampling: Sampling settings.
    """

    model: str
    engine: str = "transformers"
    name: str = ""
    dataset: str = "minif2f"
    split: str = "test"
    n: int = 32
    fix_turns: int = 0
    template: str = "rl"
    rectified: bool = True
    limit: int | None = None
    sampling: SamplingParams = field(default_factory=SamplingParams)

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ConfigError(f"n must be >= 1, got {self.n}")
        if self.fix_turns not in (0, 1):
            raise ConfigError(f"fix_turns must be 0 or 1, got {self.fix_turns}")
        if self.template not in PROMPT_TEMPLATES:
            raise ConfigError(f"unknown template {self.template!r}; choose one of {', '.join(PROMPT_TEMPLATES)}")
        if self.limit is not None and self.limit < 1:
            raise ConfigError(f"limit must be >= 1, got {self.limit}")
        if not self.name:
            object.__setattr__(self, "name", Path(self.model.rstrip("/")).name or self.model)

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as a JSON-ready dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunConfig:
        """Rebuild settings saved by `to_dict` (or written by hand), with the workspace's one config loader.

        Raises:
            ConfigError: An unknown key (with the closest known one), a missing `model`, a value of the wrong type.
        """
        return parse_config(cls, data, where="run", error=ConfigError)


def read_settings(path: str | os.PathLike[str], what: str) -> dict[str, Any] | None:
    """The JSON object in one of a run folder's settings files (``run.json``, ``search.json``); None without the file.

    Args:
        path: The file.
        what: What it configures (``run``, ``search``), for the error message.

    Raises:
        ConfigError: ``PATH: not a WHAT configuration (why)`` when the file is not a JSON object.
    """
    path = Path(path)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}: not a {what} configuration ({error})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: not a {what} configuration (not a JSON object)")
    return data


def load_settings[S](
    path: str | os.PathLike[str],
    parse: Callable[[Mapping[str, Any]], S],
    what: str,
    *,
    skip: Collection[str] = (),
) -> S | None:
    """Read a settings file (see `read_settings`) and rebuild its dataclass with ``parse``; None without the file.

    Args:
        path: The file.
        parse: Rebuilds the settings (``RunConfig.from_dict``, ``SearchConfig.from_dict``).
        what: What it configures, for the error message.
        skip: Keys of the file that are not settings (``run.json``'s turn numbering).

    Raises:
        ConfigError: ``PATH: not a WHAT configuration (why)``: not JSON, an unknown key, a value of the wrong type.
    """
    data = read_settings(path, what)
    if data is None:
        return None
    try:
        return parse({key: value for key, value in data.items() if key not in skip})
    except (TypeError, ValueError) as error:
        raise ConfigError(f"{Path(path)}: not a {what} configuration ({error})") from None


def save_settings(path: str | os.PathLike[str], data: Mapping[str, Any]) -> None:
    """Write a settings file as indented JSON, creating its folder if needed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def refuse_changes(saved: object, wanted: object, names: Iterable[str], *, what: str, may_change: str = "") -> None:
    """Refuse to resume a folder whose saved settings differ from the wanted ones in one of ``names``.

    Args:
        saved: The settings the folder holds.
        wanted: The settings asked for now.
        names: The attributes a resume must keep.
        what: What the folder holds (``run``, ``search``), for the message.
        may_change: Appended to the message's advice, e.g. `` (budgets may change)``.

    Raises:
        ConfigError: Naming the first setting that differs, its saved and its wanted value.
    """
    for name in names:
        before, after = getattr(saved, name), getattr(wanted, name)
        if before != after:
            raise ConfigError(
                f"the output directory holds a {what} with {name}={before!r}, not {after!r}; "
                f"use another --out, or the same settings to resume{may_change}"
            )


def load_config(directory: str | os.PathLike[str]) -> RunConfig | None:
    """Read ``run.json`` from a run directory; None when there is none.

    Raises:
        ConfigError: If the file exists but is not a run configuration.
    """
    return load_settings(Path(directory) / RUN_FILE, RunConfig.from_dict, "run", skip=(_FIRST_TURN_KEY,))


def load_first_turn(directory: str | os.PathLike[str]) -> int | None:
    """How the run folder's ``samples.jsonl`` numbers turns: its first turn's number, from ``run.json``.

    Returns:
        `FIRST_TURN` (1) for a run written by kimina-eval 0.6 or later, 0 for an older run (``run.json`` without
        ``first_turn``), None when the folder has no ``run.json``.

    Raises:
        ConfigError: If ``run.json`` cannot be read or names another numbering.
    """
    path = Path(directory) / RUN_FILE
    data = read_settings(path, "run")
    if data is None:
        return None
    first = data.get(_FIRST_TURN_KEY, LEGACY_FIRST_TURN)
    if first not in (FIRST_TURN, LEGACY_FIRST_TURN) or isinstance(first, bool):
        raise ConfigError(f"{path}: first_turn must be {FIRST_TURN} or 0, got {first!r}")
    return int(first)


def save_config(directory: str | os.PathLike[str], config: RunConfig, *, first_turn: int = FIRST_TURN) -> None:
    """Write ``run.json`` into a run directory, creating it if needed.

    Args:
        directory: The run folder.
        config: The settings.
        first_turn: How its ``samples.jsonl`` numbers turns: `FIRST_TURN` for a new run; 0 keeps a pre-0.6 run's
            numbering when it is resumed (written as no key, as that version wrote it).
    """
    data = config.to_dict()
    if first_turn != LEGACY_FIRST_TURN:
        data[_FIRST_TURN_KEY] = first_turn
    save_settings(Path(directory) / RUN_FILE, data)


def check_resumable(saved: RunConfig, wanted: RunConfig) -> None:
    """Refuse to mix two different runs in one directory (``n``, ``limit`` and ``fix_turns`` may grow).

    Raises:
        ConfigError: Naming the first setting that differs.
    """
    refuse_changes(saved, wanted, _IDENTITY, what="run")
