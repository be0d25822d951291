"""The launch report: per-step figures from verl's metrics file and the rollout's answer log, summary.json, the plot."""

import json
from pathlib import Path

import pytest
from kimina_train.report import (
    history_state,
    plot_metrics,
    read_answers,
    render_summary,
    report_launch,
    summarize,
    write_summary,
)
from kimina_train.runfolder import TrainFolder
from rich.console import Console


def _verl_line(step: int, **data: float) -> str:
    """A line as verl's file logger writes it (`Tracking` backend `file`)."""
    return json.dumps({"step": step, "data": {"training/global_step": step, **data}})


@pytest.fixture
def run(tmp_path: Path) -> TrainFolder:
    folder = TrainFolder(tmp_path).create()
    folder.metrics.write_text(
        "\n".join(
            [
                json.dumps({"step": 0, "data": {"val-core/minif2f/acc/mean@2": 0.0}}),  # validation before training
                _verl_line(1, **{"critic/score/mean": 0.5, "critic/score/max": 1.0, "training/num_turns/mean": 2.5}),
                _verl_line(2, **{"critic/score/mean": 0.0, "critic/score/max": 0.0, "training/num_turns/mean": 2.0}),
            ]
        )
        + "\n"
    )
    (folder.checkpoints).mkdir()
    (folder.checkpoints / "latest_checkpointed_iteration.txt").write_text("2")
    return folder


def _answers(path: Path, *entries: tuple[float, int, str]) -> Path:
    path.write_text("".join(json.dumps({"time": t, "weights_version": v, "answer": a}) + "\n" for t, v, a in entries))
    return path


def test_steps_come_from_verls_metrics_and_the_fix_turns_from_its_turn_count(run: TrainFolder) -> None:
    summary = summarize(run, trajectories=8)
    assert [s.step for s in summary.steps] == [1, 2]  # validation at step 0 is not a training step
    first, second = summary.steps
    assert (first.reward_mean, first.reward_max, first.fix_turns) == (0.5, 1.0, 2)  # (2.5 - 2) / 2 x 8
    assert second.fix_turns == 0 and summary.checkpoint_step == 2


def test_answers_count_for_the_step_their_weights_served_and_only_for_this_launch(
    run: TrainFolder, tmp_path: Path
) -> None:
    log = _answers(
        tmp_path / "rollouts.jsonl",
        (50.0, 0, "reference"),  # an earlier launch
        (100.0, 0, "sampled"),
        (101.0, 0, "injected_error"),
        (102.0, 1, "fix_reference"),
    )
    assert read_answers(log, since=100.0) == {1: {"sampled": 1, "injected_error": 1}, 2: {"fix_reference": 1}}
    summary = summarize(run, trajectories=8, answers_log=log, since=100.0)
    assert [s.replayed for s in summary.steps] == [1, 1]
    data = json.loads(write_summary(run, summary).read_text())
    assert [s["replayed"] for s in data["steps"]] == [1, 1] and data["checkpoint_step"] == 2


def test_the_report_names_the_replay_and_the_verifiers_checks(run: TrainFolder, tmp_path: Path) -> None:
    log = _answers(tmp_path / "rollouts.jsonl", (1.0, 0, "reference"), (2.0, 0, "sampled"))
    console = Console(record=True, width=120)
    render_summary(
        summarize(run, trajectories=8, answers_log=log, verifier_checks={"valid": 3, "lean_error": 1}), console
    )
    text = " ".join(console.export_text().split())
    assert "REFERENCE REPLAY" in text and "reference 1, sampled 1" in text
    assert "verifier: 4 checks served during training (lean_error 1, valid 3)" in text
    quiet = Console(record=True, width=120)
    render_summary(summarize(run, trajectories=8), quiet)  # a GPU run: nothing replayed, nothing said about it
    assert "REFERENCE REPLAY" not in quiet.export_text()


def test_the_plot_is_written_and_a_run_without_metrics_gets_none(run: TrainFolder, tmp_path: Path) -> None:
    assert plot_metrics(run, summarize(run, trajectories=8)) == run.plot and run.plot.stat().st_size > 0
    empty = TrainFolder(tmp_path / "empty").create()
    assert plot_metrics(empty, summarize(empty, trajectories=8)) is None


def test_an_empty_history_is_explained_when_every_train_row_is_evaluation_data(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    def rows(split: str) -> Path:
        path = tmp_path / f"{split}.parquet"
        row = {"data_source": "minif2f", "reward_model": {"ground_truth": "theorem t : True"}}
        pq.write_table(pa.Table.from_pylist([{**row, "extra_info": {"split": split, "uid": "t"}}]), path)
        return path

    count, note = history_state(tmp_path / "none.sqlite", [str(rows("test"))])
    assert count == 0 and note is not None and "never records" in note
    assert history_state(tmp_path / "none.sqlite", [str(rows("train"))]) == (0, None)  # nothing to explain


def test_report_launch_reads_the_recipe_and_writes_the_summary(run: TrainFolder, tmp_path: Path) -> None:
    from kimina_train.recipe import load_recipe

    recipe = load_recipe("smoke", [f"kimina.run_dir={run.path}"], cpu=True)
    log = Path(recipe.config.actor_rollout_ref.rollout.custom.reference_replay.log)
    _answers(log, (10.0, 0, "reference"), (11.0, 1, "fix_reference"))
    console = Console(record=True, width=120)
    summary = report_launch(recipe, run, console, started=5.0, verifier_checks={"valid": 2})
    assert summary is not None and [s.replayed for s in summary.steps] == [1, 1]
    assert summary.history_problems == 0  # the smoke keeps a history file; none was written here
    assert run.summary.is_file() and run.plot.is_file()
    assert report_launch(recipe, TrainFolder(tmp_path / "failed").create(), console, started=0.0) is None
    assert "verl logged no training step" in " ".join(console.export_text().split())


def test_the_summary_is_a_train_summary_and_the_old_name_warns() -> None:
    from kimina_train import report

    with pytest.warns(DeprecationWarning, match="use kimina_train.report.TrainSummary"):
        assert report.RunSummary is report.TrainSummary
    assert "RunSummary" not in report.__all__ and "TrainSummary" in report.__all__
    with pytest.raises(AttributeError, match="has no attribute 'Summary'"):
        report.Summary  # noqa: B018


def test_the_run_folder_is_a_train_folder_and_the_old_name_warns() -> None:
    from kimina_train import runfolder

    with pytest.warns(DeprecationWarning, match="use kimina_train.runfolder.TrainFolder"):
        assert runfolder.RunFolder is runfolder.TrainFolder
    assert "RunFolder" not in runfolder.__all__ and "TrainFolder" in runfolder.__all__
