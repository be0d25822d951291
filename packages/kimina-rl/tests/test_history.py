"""The win-rate history counts outcomes exactly, survives a killed writer, and exports what kimina-data reads."""

import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from kimina_rl.history import Outcome, WinRate, WinRateHistory

_WRITER = textwrap.dedent(
    """
    import sys
    from kimina_rl.history import Outcome, WinRateHistory

    history = WinRateHistory(sys.argv[1])
    batch, batches = int(sys.argv[2]), int(sys.argv[3])
    done = 0
    for step in range(batches):
        history.record(Outcome(f"p{i % 10}", solved=i % 4 == 0, data_source="numina") for i in range(batch))
        done += batch
        print(done, flush=True)
    """
)


def _writer(db: Path, batch: int, batches: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(db), str(batch), str(batches)], stdout=subprocess.PIPE, text=True
    )


def _total_attempts(db: Path) -> int:
    with WinRateHistory(db) as history:
        return sum(rate.n_proofs for rate in history.win_rates())


def test_counts_attempts_and_successes(tmp_path: Path) -> None:
    with WinRateHistory(tmp_path / "h.sqlite") as history:
        assert history.record([]) == 0
        history.record([Outcome("p1", True, "theorem a : True := by", "numina"), Outcome("p1", False)])
        history.record([Outcome("p1", True), Outcome("p2", False, data_source="numina")])
        p1 = history.get("p1")
        assert p1 == WinRate("p1", "numina", "theorem a : True := by", None, n_proofs=3, n_correct_proofs=2)
        assert p1.win_rate == pytest.approx(2 / 3)
        assert history.get("p2") is not None and history.get("p2").win_rate == 0.0  # type: ignore[union-attr]
        assert history.get("never") is None
        assert len(history) == 2
    # Reopening sees the same counts: each record() was committed.
    with WinRateHistory(tmp_path / "h.sqlite") as history:
        assert [rate.n_proofs for rate in history.win_rates()] == [3, 1]


def test_killed_writer_loses_at_most_the_batch_in_flight(tmp_path: Path) -> None:
    db, batch = tmp_path / "h.sqlite", 50
    writer = _writer(db, batch, batches=1_000_000)
    assert writer.stdout is not None
    reported = 0
    for line in writer.stdout:
        reported = int(line)
        if reported >= 40 * batch:
            break
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    # Lines the writer printed before it died: each one follows a record() that returned.
    reported = max([reported, *(int(line) for line in writer.stdout.read().split())])
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    total = _total_attempts(db)
    # Everything the writer saw recorded is there; at most the batch in flight when it died is extra.
    assert reported <= total <= reported + batch
    assert total % batch == 0  # never half a batch


def test_concurrent_writer_processes_add_up(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite"
    WinRateHistory(db).close()
    writers = [_writer(db, batch=20, batches=30) for _ in range(3)]
    for writer in writers:
        assert writer.wait(timeout=120) == 0
    with WinRateHistory(db) as history:
        rates = list(history.win_rates())
    assert sum(rate.n_proofs for rate in rates) == 3 * 20 * 30
    assert sum(rate.n_correct_proofs for rate in rates) == 3 * 5 * 30


def test_export_jsonl_and_parquet(tmp_path: Path) -> None:
    with WinRateHistory(tmp_path / "h.sqlite") as history:
        solved = Outcome("u1", True, "theorem x : 1 = 1 := by", "numina", informal_problem="Show 1 = 1.")
        history.record([solved] * 3 + [Outcome("u1", False)])
        history.record([Outcome("u2", False, "theorem y : 2 = 2 := by")])
        assert history.export(tmp_path / "w.jsonl") == 2
        assert history.export(tmp_path / "w2.jsonl", min_attempts=2) == 1
        assert history.export(tmp_path / "w.parquet") == 2
        with pytest.raises(ValueError, match=r"\.jsonl or \.parquet"):
            history.export(tmp_path / "w.csv")
    rows = [json.loads(line) for line in (tmp_path / "w.jsonl").read_text().splitlines()]
    assert rows[0] == {
        "uuid": "u1",
        "problem": "Show 1 = 1.",
        "formal_statement": "theorem x : 1 = 1 := by",
        "data_source": "numina",
        "rl_data": {"n_correct_proofs": 3, "n_proofs": 4, "win_rate": 0.75},
    }
    import pyarrow.parquet as pq

    table = pq.read_table(tmp_path / "w.parquet").to_pylist()
    assert table == rows


def test_bad_paths_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        WinRateHistory(tmp_path / "missing" / "h.sqlite")
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database" * 100)
    with pytest.raises(ValueError, match="not a win-rate history"):
        WinRateHistory(garbage)
