"""A run directory as `kimina-eval run` and `kimina-eval search` both use it: its settings, its samples, its checks."""

from __future__ import annotations

import os
from pathlib import Path

from kimina_verify.attempts import FIRST_TURN

from kimina_eval.config import (
    SAMPLES_FILE,
    ConfigError,
    RunConfig,
    check_resumable,
    load_config,
    load_first_turn,
    save_config,
)
from kimina_eval.store import guess_first_turn, read_jsonl


class RunFolder:
    """The folder one run writes into: ``run.json`` (settings), ``samples.jsonl`` (graded attempts), and more files.

    `check` refuses a folder that holds another run before anything is written; `claim` checks again (another process
    may have started a run there since) and writes ``run.json``. The lemma search adds its own ``search.json`` and
    ``search.jsonl`` beside these.

    Args:
        path: The directory (created by `claim`).
        config: The run's settings.
        same_n: Refuse a folder whose run had another ``n`` (a search's rounds are sized by it; an evaluation may
            grow ``n`` instead).
    """

    def __init__(self, path: str | os.PathLike[str], config: RunConfig, *, same_n: bool = False) -> None:
        self.path = Path(path)
        self.config = config
        self.same_n = same_n

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
        """Refuse a folder that holds a run with other settings.

        Raises:
            ConfigError: Naming the first setting that differs.
        """
        saved = self.saved()
        if saved is None:
            return
        check_resumable(saved, self.config)
        if self.same_n and saved.n != self.config.n:
            raise ConfigError(f"the output directory holds a search with n={saved.n}, not {self.config.n}")

    def claim(self) -> int:
        """Check the folder again and write ``run.json``: from now on it holds this run.

        A pre-0.6 run keeps its turn numbering (0 and 1) when resumed, so its ``samples.jsonl`` holds one numbering.

        Returns:
            The folder's turn numbering (see `first_turn`), for the `kimina_eval.store.SampleWriter`.
        """
        self.check()
        first_turn = self.first_turn()
        save_config(self.path, self.config, first_turn=first_turn)
        return first_turn
