"""The `kimina-rl` command line: history summary and export, config printing, clear errors with exit status 2."""

import json
from pathlib import Path

import pytest
import yaml
from kimina_rl.cli import main
from kimina_rl.history import Outcome, WinRateHistory


@pytest.fixture
def history_file(tmp_path: Path) -> Path:
    path = tmp_path / "history.sqlite"
    with WinRateHistory(path) as history:
        history.record([Outcome("easy", True, "theorem e", "numina")] * 3 + [Outcome("hard", False, "theorem h")])
    return path


def test_history_show_and_export(history_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "show", str(history_file)]) == 0
    shown = capsys.readouterr().out
    assert "2 problems, 4 attempts, 3 proofs" in shown and "1 problems above win rate 0.5" in shown
    out = tmp_path / "rates.jsonl"
    assert main(["history", "export", str(history_file), "--out", str(out), "--min-attempts", "2"]) == 0
    assert "wrote 1 problems" in capsys.readouterr().err
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["uuid"] == "easy" and row["rl_data"] == {"n_correct_proofs": 3, "n_proofs": 3, "win_rate": 1.0}


def test_per_node_files_add_up(history_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "node2.sqlite"
    with WinRateHistory(other) as history:
        history.record([Outcome("easy", False), Outcome("new", True, "theorem n", informal_problem="Show n.")])
    out = tmp_path / "rates.parquet"
    assert main(["history", "export", str(history_file), str(other), "--out", str(out)]) == 0
    import pyarrow.parquet as pq

    rows = {row["uuid"]: row for row in pq.read_table(out).to_pylist()}
    assert rows["easy"]["rl_data"] == {"n_correct_proofs": 3, "n_proofs": 4, "win_rate": 0.75}
    assert rows["easy"]["formal_statement"] == "theorem e"  # kept from the file that had it
    assert rows["new"]["problem"] == "Show n." and set(rows) == {"easy", "hard", "new"}
    assert main(["history", "show", str(history_file), str(other)]) == 0
    assert "3 problems, 6 attempts, 4 proofs" in capsys.readouterr().out


def test_bad_input_exits_2_with_one_line(
    history_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.sqlite"
    assert main(["history", "show", str(missing)]) == 2
    assert "no history file" in capsys.readouterr().err
    assert not missing.exists()  # reading never creates an empty history
    assert main(["history", "export", str(history_file), "--out", str(tmp_path / "rates.csv")]) == 2
    assert ".jsonl or .parquet" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["history"])
    assert usage.value.code == 2


def test_config_prints_resolved_yaml(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "data.max_response_length=4096"]) == 0
    cfg = yaml.safe_load(capsys.readouterr().out)
    assert cfg["actor_rollout_ref"]["actor"]["loss_scale_factor"] == 4096
    assert main(["config", "actor_rollout_ref.actor.nope=1"]) == 2
    assert "Could not override" in capsys.readouterr().err
    assert main(["config", "--paths"]) == 0
    assert "agent_loops.yaml" in capsys.readouterr().out


def test_an_empty_history_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kimina_rl.cli import EMPTY_HISTORY
    from kimina_rl.scoring import RewardProblem

    empty = tmp_path / "history.sqlite"
    WinRateHistory(empty).close()
    assert main(["history", "show", str(empty)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "no outcome recorded" in out and "miniF2F-test" in out
    # Every split the message names is one the history leaves out, and a training row is recorded.
    for split in ("val", "valid", "validation", "test"):
        assert split in EMPTY_HISTORY
        assert not RewardProblem.from_row("minif2f", "theorem t : True", {"split": split}).training
    assert RewardProblem.from_row("numina", "theorem t : True", {"split": "train"}).training
