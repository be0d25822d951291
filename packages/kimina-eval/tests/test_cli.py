import json
from pathlib import Path
from typing import Any

import pytest
from kimina_eval.cli import main
from kimina_eval.engines import check_model
from kimina_eval.metrics import pass_at_k
from kimina_eval.testing import ScriptedEngine


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


@pytest.mark.parametrize("first_turn", [1, 0], ids=["protocol turns 1 and 2", "turns 0 and 1 before 0.6"])
def test_score_with_fix_turns_and_a_corrupt_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], first_turn: int
) -> None:
    rows = [
        {"problem": "a", "correct": False, "turn": first_turn},
        {"problem": "a", "correct": True, "turn": first_turn + 1},
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
    assert main(["score", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.fixture
def no_model_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the command gets as far as loading a model."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the model was loaded before a cheap check failed")

    monkeypatch.setattr("kimina_eval.cli.make_engine", refuse)


def run_one_line_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("error:") == 1
    return code, err


def test_the_server_comes_from_the_environment_and_is_checked_before_the_model_loads(
    tiny_model: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    no_model_load: None,
) -> None:
    monkeypatch.setenv("LEAN_SERVER_API_URL", "http://127.0.0.1:9")
    code, err = run_one_line_error(["run", "--model", str(tiny_model), "--out", str(tmp_path / "a")], capsys)
    assert code == 3 and "no verification server at http://127.0.0.1:9" in err and "kimina-verify serve" in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--split", "train"], "unknown split 'train'"),
        (["--dataset", "missing.jsonl"], "dataset file not found: missing.jsonl"),
        (["--template", "chatml"], "unknown template 'chatml'"),
        (["--limit", "1", "--temperature", "0.5"], "the output directory holds a run with sampling="),
    ],
)
def test_cheap_mistakes_fail_before_the_model_loads(
    lean_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
    message: str,
) -> None:
    out = tmp_path / "run"
    argv = ["run", "--model", "scripted-model", "--out", str(out), "--lean-url", lean_url, "--n", "1"]
    # A run already in the folder, with the default sampling: a resume with another temperature is refused.
    monkeypatch.setattr("kimina_eval.cli.make_engine", lambda *a, **k: ScriptedEngine(lambda m, i: "no proof"))
    assert main([*argv, "--limit", "1", "--max-tokens", "8"]) == 0
    capsys.readouterr()

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the model was loaded before a cheap check failed")

    monkeypatch.setattr("kimina_eval.cli.make_engine", refuse)
    code, err = run_one_line_error([*argv, "--max-tokens", "8", *extra], capsys)
    assert code == 2 and message in err


@pytest.mark.parametrize(
    ("model", "engine", "message"),
    [
        ("./nope", "transformers", "no model directory at ./nope"),
        ("/models/nope", "vllm", "no model directory at /models/nope"),
        ("~/nope/prover", "transformers", "no model directory at ~/nope/prover"),
        ("a/b/c", "transformers", "no model directory at a/b/c"),
        ("AI-MO/Kimina", "openai", "--engine openai takes the server's URL as --model"),
    ],
)
def test_a_model_that_cannot_work_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str, engine: str, message: str, no_model_load: None
) -> None:
    argv = ["run", "--model", model, "--engine", engine, "--out", str(tmp_path / "run"), "--lean-url", "http://x:9"]
    code, err = run_one_line_error(argv, capsys)
    assert code == 2 and message in err and "repo" not in err.lower()
    assert not (tmp_path / "run").exists()  # nothing was written


def test_vllm_without_the_extra_is_one_line_naming_both_installs(
    tiny_model: Path, lean_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        import vllm  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("vllm is installed")
    argv = ["run", "--model", str(tiny_model), "--engine", "vllm", "--out", str(tmp_path), "--lean-url", lean_url]
    code, err = run_one_line_error(argv, capsys)
    # The extra's brackets survive the terminal's markup.
    assert code == 2 and "pip install 'kimina-eval[vllm]'" in err and "uv sync --all-packages --extra vllm" in err


def test_check_model_lets_hub_ids_and_existing_directories_through(tiny_model: Path) -> None:
    for model in ("AI-MO/Kimina-Prover-Distill-1.7B", "gpt2", str(tiny_model)):
        check_model("transformers", model)
    check_model("openai", "http://localhost:8001")
    with pytest.raises(ValueError, match="is a file"):
        check_model("transformers", str(tiny_model / "config.json"))


def test_run_rejects_an_unknown_split(tiny_model: Path, lean_url: str, tmp_path: Path, capsys: Any) -> None:
    argv = ["run", "--model", str(tiny_model), "--out", str(tmp_path), "--split", "train", "--lean-url", lean_url]
    assert main(argv) == 2
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
    # The test server runs lean-repl-sim: the report and summary.json say so before any number.
    assert markdown.split("\n")[2].startswith("> **Warning:** NOT REAL PROOFS: `tiny-a`, `tiny-b` were verified")
    assert summary["stand_in"] is True and summary["runs"][0]["verifier"]["stand_in"] is True
    assert summary["runs"][0]["verifier"]["environments"][0]["lean_env"].startswith("lean-repl-sim/")
    assert summary["runs"][1]["config"]["template"] == "distill"
    assert (tmp_path / "r" / "pass_at_k.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_of_a_missing_run_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "nope")]) == 2
    assert "samples.jsonl not found" in capsys.readouterr().err
