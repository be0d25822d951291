"""A run directory as `kimina-eval run` and `kimina-eval search` both use it: its settings, its samples, its checks.

One implementation of "refuse to resume a folder that holds another run, then save the settings" for both commands:
``run.json`` for every run, ``search.json`` beside it for a search (`kimina_eval.search.config`), read, compared and
written by `kimina_eval.config`'s settings-file helpers.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from kimina_verify.attempts import FIRST_TURN

from kimina_eval.config import (
    SAMPLES_FILE,
    ConfigError,
    RunConfig,
    check_resumable,
    load_config,
    load_first_turn,
    refuse_changes,
    save_config,
)
from kimina_eval.engines.base import Engine, EngineFactory, as_engine
from kimina_eval.store import guess_first_turn, read_jsonl

if TYPE_CHECKING:
    from kimina_eval.search.config import SearchConfig

__all__ = ["RunFolder"]


class RunFolder:
    """The folder one run writes into: ``run.json`` (settings), ``samples.jsonl`` (graded attempts), and more files.

    `check` refuses a folder that holds another run before anything is written; `start` checks again, builds the
    engine and claims the folder (`claim`: checks once more, since another process may have started a run there
    while a model loaded, and writes the settings). A search's folder also holds ``search.json`` (its settings, checked
    and written with ``run.json``) and ``search.jsonl`` (its log).

    Args:
        path: The directory (created by `claim`).
        config: The run's settings.
        search: The lemma search's settings, for a search's folder: the run's ``n`` must then be the saved one (a
            search's rounds are sized by it; an evaluation may grow ``n``), and a folder holding an evaluation's
            samples without ``search.json`` is refused.
    """

    def __init__(self, path: str | os.PathLike[str], config: RunConfig, *, search: SearchConfig | None = None) -> None:
        self.path = Path(path)
        self.config = config
        self.search = search

    @property
    def samples(self) -> Path:
        """``samples.jsonl``: one line per graded attempt."""
        return self.path / SAMPLES_FILE

    def saved(self) -> RunConfig | None:
        """The settings saved in the folder, or None when it holds no run.

        Raises:
            ConfigError: If ``run.json`` exists but cannot be read.
        """
        return load_config(self.path)

    def saved_search(self) -> SearchConfig | None:
        """The search settings saved in the folder (``search.json``), or None when it holds no search.

        Raises:
            ConfigError: If ``search.json`` exists but cannot be read.
        """
        from kimina_eval.search.config import load_search_config  # the search package imports this module

        return load_search_config(self.path)

    def first_turn(self) -> int:
        """How ``samples.jsonl`` numbers turns (`kimina_eval.store`): its first turn's number.

        What ``run.json`` says; without one, what the rows say; `FIRST_TURN` for a new folder.

        Raises:
            ConfigError: If ``run.json`` exists but cannot be read.
        """
        saved = load_first_turn(self.path)
        if saved is not None:
            return saved
        return guess_first_turn(read_jsonl(self.samples).rows) if self.samples.exists() else FIRST_TURN

    def check(self) -> None:
        """Refuse a folder that holds a run (or a search) with other settings.

        Raises:
            ConfigError: Naming the first setting that differs, or saying that the folder holds an evaluation where
                a search was asked for.
        """
        saved = self.saved()
        saved_search = self.saved_search() if self.search is not None else None
        if self.search is not None and saved is not None and saved_search is None and self.samples.exists():
            raise ConfigError(f"{self.path} holds an evaluation run, not a search; use another --out")
        if saved is not None:
            check_resumable(saved, self.config)
            if self.search is not None:
                refuse_changes(saved, self.config, ("n",), what="search")
        if self.search is not None and saved_search is not None:
            from kimina_eval.search.config import check_search_resumable

            check_search_resumable(saved_search, self.search)

    def claim(self) -> int:
        """Check the folder again and write its settings (``run.json``, and ``search.json`` for a search).

        A pre-0.6 run keeps its turn numbering (0 and 1) when resumed, so its ``samples.jsonl`` holds one numbering.

        Returns:
            The folder's turn numbering (see `first_turn`), for the `kimina_eval.store.SampleWriter`.

        Raises:
            ConfigError: As `check`.
        """
        self.check()
        first_turn = self.first_turn()
        save_config(self.path, self.config, first_turn=first_turn)
        if self.search is not None:
            from kimina_eval.search.config import save_search_config

            save_search_config(self.path, self.search)
        return first_turn

    def start(self, engine: Engine | EngineFactory) -> tuple[Engine, int]:
        """Check the folder, build the engine, claim the folder: how `run` and `search` both begin.

        An engine given as a factory is built only here, once every cheap check has passed, so a folder that holds
        another run costs a second, not a model load; the folder is checked again after the load.

        Returns:
            The engine, and the folder's turn numbering (see `claim`).

        Raises:
            ConfigError: As `check`.
        """
        self.check()
        built = as_engine(engine)
        return built, self.claim()
