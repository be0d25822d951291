"""`kimina-format check`: verdicts, summary, JSON output, and a clear error for every kind of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from kimina_format.cli import main
from kimina_format.testing import SAMPLE_FORMAL_STATEMENT, build_completion


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def good_and_bad(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "rows.jsonl",
        [
            {"name": "good", "completion": build_completion(), "formal_statement": SAMPLE_FORMAL_STATEMENT},
            {"name": "bad", "completion": "I have no idea.", "formal_statement": SAMPLE_FORMAL_STATEMENT},
        ],
    )


def test_text_output_and_summary(good_and_bad: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(good_and_bad)]) == 0
    out = capsys.readouterr().out
    assert "line 1 good: ok, score 1.00" in out
    assert "line 2 bad: FAIL" in out and "think_missing: no <think>...</think> block" in out
    assert "2 rows: 1 pass (50.0%), 1 fail" in out
    assert "think_missing" in out.split("violation")[-1]


def test_json_output_is_one_verdict_per_line(good_and_bad: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(good_and_bad), "--json", "--statement-field", "formal_statement"]) == 0
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [(v["line"], v["name"], v["ok"]) for v in lines] == [(1, "good", True), (2, "bad", False)]
    assert lines[0]["metrics"]["statement_match"] is True
    assert "2 rows: 1 pass" in captured.err  # the summary keeps stdout pure JSONL


def test_custom_field_and_chat_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "chat.jsonl", [{"response": [{"role": "assistant", "content": build_completion()}]}])
    assert main(["check", str(path), "--field", "response"]) == 0
    assert "1 rows: 1 pass" in capsys.readouterr().out


def test_real_data_summary(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = data_dir / "kimina_completions.jsonl"
    assert main(["check", str(path), "--statement-field", "formal_statement"]) == 0
    assert "197 rows: 190 pass (96.4%), 7 fail" in capsys.readouterr().out


def error_of(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, "errors are one line"
    return err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "no such file" in error_of(["check", str(tmp_path / "nope.jsonl")], capsys)


def test_directory_instead_of_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "not a regular file" in error_of(["check", str(tmp_path)], capsys)


def test_invalid_json_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"completion": "x"}) + "\n\n{not json\n", encoding="utf-8")
    err = error_of(["check", str(path)], capsys)
    assert f"{path}:3: invalid JSON" in err


def test_verdicts_before_a_bad_line_are_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"completion": build_completion()}) + "\n[1, 2]\n", encoding="utf-8")
    assert main(["check", str(path)]) == 2
    captured = capsys.readouterr()
    assert "line 1: ok" in captured.out
    assert ":2: expected a JSON object, got list" in captured.err


def test_missing_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "rows.jsonl", [{"text": "x"}])
    assert "line 1: no field 'completion' (fields: text)" in error_of(["check", str(path)], capsys)


def test_missing_statement_field(good_and_bad: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = error_of(["check", str(good_and_bad), "--statement-field", "statement"], capsys)
    assert "line 1: no field 'statement'" in err


def test_field_of_the_wrong_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "rows.jsonl", [{"completion": 42}])
    assert "field 'completion' is int" in error_of(["check", str(path)], capsys)


def test_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    assert "no rows to check" in error_of(["check", str(path)], capsys)


def test_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"completion": "ok"}\n{"completion": "caf\xe9"}\n')
    assert "not UTF-8 text" in error_of(["check", str(path)], capsys)


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "f.jsonl", "--bogus"])
    assert exit_info.value.code == 2


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "--statement-field" in out and "Exit code 0" in out


def test_python_dash_m_reads_stdin(tmp_path: Path) -> None:
    line = json.dumps({"completion": build_completion()}) + "\n"
    result = subprocess.run(
        [sys.executable, "-m", "kimina_format", "check", "-", "--json"],
        input=line,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["ok"] is True


def test_a_lone_surrogate_round_trips_in_json(tmp_path: Path) -> None:
    # Written raw, a lone surrogate cannot be encoded; the run escapes it, which JSON reads back as the same string.
    completion = build_completion().replace("```lean4\n", "```lean4\n-- \ud800\n", 1)
    path = write_jsonl(tmp_path / "rows.jsonl", [{"completion": completion}])
    result = subprocess.run(
        [sys.executable, "-m", "kimina_format", "check", str(path), "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "\ud800" in json.loads(result.stdout)["code"]
