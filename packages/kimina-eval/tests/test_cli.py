import json
from pathlib import Path
from typing import Any

import pytest
from kimina_eval.cli import main
from kimina_eval.metrics import pass_at_k


def recorded(data_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (data_dir / "recorded_verdicts.jsonl").open()]


def test_score_recorded_verdicts_per_model(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["score", str(data_dir / "recorded_verdicts.jsonl"), "--problem-field", "name"]
    assert main([*argv, "--correct-field", "verdict", "--by", "model", "--k", "1,2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = recorded(data_dir)
    assert set(out) == {r["model"] for r in rows}
    for model, scores in out.items():
        per_problem: dict[str, list[bool]] = {}
        for r in rows:
            if r["model"] == model:
                per_problem.setdefault(r["name"], []).append(r["verdict"])
        expected = sum(sum(v) / len(v) for v in per_problem.values()) / len(per_problem)
        assert scores["pass@1"] == pytest.approx(expected, abs=1e-6)
        assert scores["problems"] == len(per_problem) and scores["skipped_lines"] == 0
        pairs = [v for v in per_problem.values() if len(v) >= 2]
        if pairs:
            assert scores["pass@2"] == pytest.approx(sum(pass_at_k(len(v), sum(v), 2) for v in pairs) / len(pairs))
        else:
            assert scores["pass@2"] is None  # no problem has two samples
    # All 197 released Kimina-Prover-Preview proofs are valid.
    assert out["Kimina-Prover-Preview"]["pass@1"] == 1.0


def test_score_with_fix_turns_and_a_corrupt_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"problem": "a", "correct": False, "turn": 0},
        {"problem": "a", "correct": True, "turn": 1},
        {"problem": "b", "correct": True},
        {"problem": "b", "correct": False},
    ]
    path = tmp_path / "samples.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows[:2]) + "\n{not json\n" + json.dumps(rows[2]) + "\n")
    path.write_text(path.read_text() + json.dumps(rows[3]) + "\n")
    assert main(["score", str(path), "--k", "1", "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["pass@1"] == pytest.approx(0.25)  # a: 0/1, b: 1/2
    assert out["pass@1_with_fix"] == pytest.approx(0.75)  # a's fix works
    assert out["skipped_lines"] == 1
    assert "skipped 1 corrupt line(s)" in captured.err and "line 3" in captured.err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("", "holds no rows"),
        ('{"problem": "a", "correct": "yes"}\n', "correct must be true, false or null"),
        ('{"name": "a", "correct": true}\n', "has no 'problem'"),
    ],
)
def test_score_bad_input_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    path = tmp_path / "in.jsonl"
    if content is not None:
        path.write_text(content)
    assert main(["score", str(path)]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_run_refuses_to_start_without_a_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("LEAN_SERVER_API_URL", raising=False)
    assert main(["run", "--model", "m", "--engine", "openai", "--out", str(tmp_path)]) == 2


def test_run_reports_an_unreachable_server(
    tiny_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--model", str(tiny_model), "--out", str(tmp_path), "--limit", "1", "--n", "1"]
    assert main([*argv, "--lean-url", "http://127.0.0.1:9", "--engine-option", "device=cpu"]) == 3
    assert "no verification server at http://127.0.0.1:9" in capsys.readouterr().err


def test_run_rejects_an_unknown_split(tiny_model: Path, lean_url: str, tmp_path: Path, capsys: Any) -> None:
    argv = ["run", "--model", str(tiny_model), "--out", str(tmp_path), "--split", "train", "--lean-url", lean_url]
    assert main(argv) == 1
    assert "unknown split 'train'" in capsys.readouterr().err


def test_run_then_report_and_compare(tiny_model: Path, lean_url: str, tmp_path: Path, capsys: Any) -> None:
    argv = ["run", "--model", str(tiny_model), "--lean-url", lean_url, "--n", "2", "--limit", "3", "--fix-turns", "1"]
    argv += ["--max-tokens", "8", "--seed", "1", "--engine-option", "device=cpu", "--engine-option", "batch_size=4"]
    assert main([*argv, "--out", str(tmp_path / "a"), "--name", "tiny-a"]) == 0
    assert main([*argv, "--out", str(tmp_path / "b"), "--name", "tiny-b", "--template", "distill"]) == 0
    out = capsys.readouterr().out
    assert "| Model | Pass@2 | Pass@2 with error fixing |" in out and "| tiny-b | 0.00%" in out

    assert main(["report", str(tmp_path / "a"), "--compare", str(tmp_path / "b"), "--out", str(tmp_path / "r")]) == 0
    markdown = (tmp_path / "r" / "report.md").read_text()
    assert "| tiny-a | 0.00% [0.0, 0.0] | 0.00% [0.0, 0.0] |" in markdown
    assert "| tiny-b | 0.00% [0.0, 0.0] | 0.00% [0.0, 0.0] |" in markdown
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert [run["name"] for run in summary["runs"]] == ["tiny-a", "tiny-b"]
    assert summary["runs"][1]["config"]["template"] == "distill"
    assert (tmp_path / "r" / "pass_at_k.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_of_a_missing_run_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "nope")]) == 1
    assert "samples.jsonl not found" in capsys.readouterr().err
