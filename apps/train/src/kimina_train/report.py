"""What a finished launch leaves besides verl's own files: a per-step summary, `summary.json` and `metrics.png`.

The figures come from verl's step metrics (`metrics.jsonl`, written by verl's `file` logger), the CPU rollout's
answer log (`rollouts.jsonl`, when its reference replay is on) and the counters of a verifier started for the run.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kimina_format.lazy import lazy_exports
from rich.console import Console
from rich.table import Table

from kimina_train.recipe import Recipe
from kimina_train.runfolder import TrainFolder

__all__ = [
    "StepSummary",
    "TrainSummary",
    "history_state",
    "plot_metrics",
    "read_answers",
    "render_summary",
    "report_launch",
    "summarize",
    "write_summary",
]

logger = logging.getLogger(__name__)

SCORE, SCORE_MAX, TURNS = "critic/score/mean", "critic/score/max", "training/num_turns/mean"
_PLOTTED = ((SCORE, SCORE_MAX), (TURNS,), ("actor/pg_loss",), ("actor/grad_norm",), ("response_length/mean",))


@dataclass(frozen=True)
class StepSummary:
    """One training step, from verl's metrics and the rollout's answer log.

    Attributes:
        step: verl's global step.
        reward_mean: `critic/score/mean`, the mean reward of the step's trajectories.
        reward_max: `critic/score/max`.
        fix_turns: Trajectories with an error-correction turn: `kimina_fix` reports 2 turns, or 4 with a fix turn,
            so this is `(training/num_turns/mean - 2) / 2` times the step's trajectories.
        seconds: `timing_s/step`.
        answers: The rollout's answers by kind (`sampled`, `reference`, `injected_error`, `fix_reference`); empty
            without the CPU rollout's log.
    """

    step: int
    reward_mean: float | None
    reward_max: float | None
    fix_turns: int | None
    seconds: float | None
    answers: dict[str, int] = field(default_factory=dict)

    @property
    def replayed(self) -> int:
        """Answers that were reference completions rather than the model's."""
        return sum(count for kind, count in self.answers.items() if kind != "sampled")


@dataclass(frozen=True)
class TrainSummary:
    """A training launch's outcome in figures (`summary.json`); kimina-eval's `RunSummary` is an evaluation's.

    Attributes:
        steps: One entry per step verl logged.
        checkpoint_step: The step of verl's latest checkpoint, or None if it wrote none.
        verifier_checks: Checks the verifier started for the run finished during training, by outcome; None when
            the run used an external server.
        history_problems: Problems in the win-rate history after the run, or None if the run keeps none.
        history_note: Why the history holds no problem, when that can be told.
    """

    steps: list[StepSummary]
    checkpoint_step: int | None
    verifier_checks: dict[str, int] | None
    history_problems: int | None = None
    history_note: str | None = None


# Renamed in kimina-train 0.5 (kimina-eval's `RunSummary` is an evaluation run's summary); the old name warns.
__getattr__, __dir__ = lazy_exports(__name__, deprecated={"RunSummary": ("kimina_train.report", "TrainSummary")})


def _read_step_metrics(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Verl's file-logger lines (`{"step": N, "data": {...}}`) that are training steps, in order."""
    if not path.is_file():
        return []
    steps = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        data = entry.get("data") or {}
        if "training/global_step" in data:  # validation before training is logged at step 0 without it
            steps.append((int(entry["step"]), data))
    return steps


def read_answers(path: Path, *, since: float = 0.0) -> dict[int, Counter[str]]:
    """The rollout's answers after time `since`, counted by kind for each training step.

    The server tags an answer with the version of its weights: the actor's step that produced them. In verl's sync
    trainer the rollout of step N runs on the weights of step N - 1.
    """
    counts: dict[int, Counter[str]] = {}
    if not path.is_file():
        return counts
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line) if line.strip() else {}
        if entry.get("time", 0) >= since and "answer" in entry:
            step = int(entry.get("weights_version") or 0) + 1
            counts.setdefault(step, Counter())[str(entry["answer"])] += 1
    return counts


def _float(data: dict[str, Any], key: str) -> float | None:
    value = data.get(key)
    return float(value) if isinstance(value, int | float) else None


def summarize(
    run: TrainFolder,
    *,
    trajectories: int,
    answers_log: Path | None = None,
    since: float = 0.0,
    verifier_checks: dict[str, int] | None = None,
) -> TrainSummary:
    """Gather the launch's figures from the run folder.

    Args:
        run: The run folder.
        trajectories: Trajectories per step (`data.train_batch_size` x `rollout.n`).
        answers_log: The CPU rollout's answer log, if it keeps one.
        since: Start time of the launch (earlier lines of the answer log belong to earlier launches).
        verifier_checks: Checks the run's own verifier finished during training.
    """
    answers = read_answers(answers_log, since=since) if answers_log else {}
    steps = []
    for step, data in _read_step_metrics(run.metrics):
        turns = _float(data, TURNS)
        steps.append(
            StepSummary(
                step=step,
                reward_mean=_float(data, SCORE),
                reward_max=_float(data, SCORE_MAX),
                fix_turns=None if turns is None else round((turns - 2) / 2 * trajectories),
                seconds=_float(data, "timing_s/step"),
                answers=dict(answers.get(step, Counter())),
            )
        )
    latest = run.checkpoints / "latest_checkpointed_iteration.txt"
    checkpoint = int(latest.read_text().strip()) if latest.is_file() else None
    return TrainSummary(steps=steps, checkpoint_step=checkpoint, verifier_checks=verifier_checks)


def write_summary(run: TrainFolder, summary: TrainSummary) -> Path:
    """`summary.json` in the run folder."""
    data = asdict(summary)
    for entry, step in zip(data["steps"], summary.steps, strict=True):
        entry["replayed"] = step.replayed
    run.summary.write_text(json.dumps(data, indent=2) + "\n")
    return run.summary


def render_summary(summary: TrainSummary, console: Console) -> None:
    """A table of the steps, then the checkpoint, the verifier's checks and the history."""
    table = Table(title="Training steps (verl's metrics)")
    for column in ("step", "reward mean", "reward max", "fix turns", "replayed answers", "seconds"):
        table.add_column(column, justify="right")
    for s in summary.steps:
        table.add_row(
            str(s.step),
            _fmt(s.reward_mean),
            _fmt(s.reward_max),
            "-" if s.fix_turns is None else str(s.fix_turns),
            f"{s.replayed} of {sum(s.answers.values())}" if s.answers else "-",
            _fmt(s.seconds, ".0f"),
        )
    console.print(table)
    totals: Counter[str] = sum((Counter(s.answers) for s in summary.steps), Counter())
    if sum(count for kind, count in totals.items() if kind != "sampled"):
        console.print(
            "[yellow]REFERENCE REPLAY: the CPU rollout answered with real Kimina-Prover completions instead of the "
            f"random model ({', '.join(f'{kind} {count}' for kind, count in sorted(totals.items()))}); the reward, "
            "Lean and the fix turn ran on them[/]"
        )
    console.print(f"checkpoint: {'none' if summary.checkpoint_step is None else f'step {summary.checkpoint_step}'}")
    if summary.verifier_checks is not None:
        checks = summary.verifier_checks
        detail = ", ".join(f"{k} {v}" for k, v in sorted(checks.items()) if v)
        console.print(f"verifier: {sum(checks.values())} checks served during training ({detail or 'none'})")
    if summary.history_problems is not None:
        note = f" ({summary.history_note})" if summary.history_note else ""
        console.print(f"win-rate history: {summary.history_problems} problems{note}")


def _fmt(value: float | None, spec: str = ".3f") -> str:
    return "-" if value is None else format(value, spec)


def plot_metrics(run: TrainFolder, summary: TrainSummary) -> Path | None:
    """`metrics.png`: reward, fix turns and replays, loss, gradient norm and response length per step."""
    steps = _read_step_metrics(run.metrics)
    if not steps:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [step for step, _ in steps]
    fig, grid = plt.subplots(2, 3, figsize=(12, 6.5))
    axes = list(grid.flat)
    for ax, keys in zip(axes, _PLOTTED, strict=False):
        for key in keys:
            values = [data.get(key) for _, data in steps]
            ax.plot(x, [float("nan") if v is None else v for v in values], marker="o", label=key)
        ax.set_title(" / ".join(keys), fontsize=9)
        if len(keys) > 1:
            ax.legend(fontsize=7)
        ax.set_xlabel("step")
        ax.set_xticks(x)
    counts = axes[len(_PLOTTED)]
    width = 0.4
    counts.bar(
        [s.step - width / 2 for s in summary.steps], [s.fix_turns or 0 for s in summary.steps], width, label="fix turns"
    )
    counts.bar(
        [s.step + width / 2 for s in summary.steps], [s.replayed for s in summary.steps], width, label="replayed"
    )
    counts.set_title("trajectories with a fix turn / replayed answers", fontsize=9)
    counts.set_xlabel("step")
    counts.set_xticks(x)
    counts.legend(fontsize=8)
    fig.suptitle(f"{run.path.name}: verl's step metrics ({run.metrics.name})", fontsize=10)
    fig.tight_layout()
    fig.savefig(run.plot, dpi=100)
    plt.close(fig)
    return run.plot


def history_state(path: Path, train_files: list[str]) -> tuple[int, str | None]:
    """Problems in the win-rate history at `path`, and why it holds none when the train rows tell."""
    import pyarrow.parquet as pq
    from kimina_rl import RewardProblem, WinRateHistory

    count = 0
    if path.is_file():
        with WinRateHistory(path) as history:
            count = len(history)
    if count:
        return count, None
    rows = [row for name in train_files if Path(name).is_file() for row in pq.read_table(name).to_pylist()]
    training = [
        RewardProblem.from_row(
            row["data_source"], (row.get("reward_model") or {}).get("ground_truth"), row["extra_info"]
        ).training
        for row in rows
    ]
    if rows and not any(training):
        return 0, (
            "the train rows are marked as validation data (extra_info.split), which the history never records, "
            "so that test problems cannot leak into the next promptset's win rates"
        )
    return 0, None


def report_launch(
    recipe: Recipe,
    run: TrainFolder,
    console: Console,
    *,
    started: float,
    verifier_checks: dict[str, int] | None = None,
) -> TrainSummary | None:
    """Print the launch's steps and write `summary.json` and `metrics.png`; None when verl logged no step.

    Args:
        recipe: The recipe launched (for the batch size, the answer log and the history file).
        run: Its run folder.
        console: Where to print.
        started: When the launch started (the answer log may hold earlier launches).
        verifier_checks: Checks the run's own verifier served during training, by outcome.
    """
    cfg = recipe.config
    replay = (cfg.actor_rollout_ref.rollout.get("custom") or {}).get("reference_replay") or {}
    summary = summarize(
        run,
        trajectories=int(cfg.data.train_batch_size) * int(cfg.actor_rollout_ref.rollout.n),
        answers_log=Path(replay["log"]) if replay.get("log") else None,
        since=started,
        verifier_checks=verifier_checks,
    )
    if not summary.steps:
        why = "verl logged no training step" if "file" in cfg.trainer.logger else "trainer.logger has no `file`"
        console.print(f"no step metrics in {run.metrics}: {why}")
        return None
    if cfg.kimina_rl.history.path:
        files = cfg.data.train_files
        count, note = history_state(Path(cfg.kimina_rl.history.path), [files] if isinstance(files, str) else files)
        summary = dataclasses.replace(summary, history_problems=count, history_note=note)
    render_summary(summary, console)
    plot = plot_metrics(run, summary)
    console.print(f"wrote {write_summary(run, summary)}" + (f", {plot}" if plot else ""))
    return summary
