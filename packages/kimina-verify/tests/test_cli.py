"""The `kimina-verify` command line: lint, check, serve, and clear errors on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kimina_verify.cli import EXIT_FAILED, EXIT_INFRA, EXIT_OK, EXIT_USAGE, main

StandIn = Any  # the `standin` fixture of conftest.py

GOOD = "import Mathlib\n\ntheorem t : 1 + 1 = 2 := by\n  norm_num\n"
STATEMENT = "import Mathlib\n\ntheorem t : 1 + 1 = 2 := by\n  sorry\n"


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, Any]], str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_lint_prints_one_object_per_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"id": "good", "code": GOOD, "formal_statement": STATEMENT},
        {"id": "sorry", "code": GOOD.replace("norm_num", "sorry")},
        {"id": "renamed", "code": GOOD.replace("theorem t", "theorem u"), "formal_statement": STATEMENT},
        {"id": 4, "code": "axiom cheat : False\n#eval 1"},
    ]
    code, out, err = run(["lint", str(write_rows(tmp_path / "rows.jsonl", rows))], capsys)
    assert code == EXIT_FAILED
    assert out == [
        {"id": "good", "ok": True, "violations": []},
        {"id": "sorry", "ok": False, "violations": ["sorry"]},
        {"id": "renamed", "ok": False, "violations": ["statement_missing"]},
        {"id": 4, "ok": False, "violations": ["axiom", "side_command"]},
    ]
    assert "1/4 rows pass" in err and "sorry: 1" in err


def test_lint_all_good_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["lint", str(write_rows(tmp_path / "rows.jsonl", [{"id": 1, "code": GOOD}]))], capsys)
    assert code == EXIT_OK and out == [{"id": 1, "ok": True, "violations": []}]


def test_lint_policy_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    native = {"id": 1, "code": "set_option autoImplicit true\ntheorem t : 1 = 1 := by native_decide"}
    path = write_rows(tmp_path / "rows.jsonl", [native])
    assert run(["lint", str(path)], capsys)[1][0]["violations"] == ["set_option"]
    _, out, _ = run(["lint", str(path), "--allow-option", "autoImplicit", "--forbid-native-decide"], capsys)
    assert out[0]["violations"] == ["native_decide"]


def test_lint_real_data(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = data_dir / "recorded_verdicts.jsonl"
    code, out, err = run(["lint", str(path), "--id-field", "name", "--code-field", "full_code"], capsys)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(out) == len(rows) == 1288
    assert all(o["ok"] for o, r in zip(out, rows, strict=True) if r["verdict"])
    assert code == EXIT_FAILED and "rows pass the integrity rules" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("", "no rows"),
        ('{"id": 1, "code": "x"}\n{"id": 2, "code": \n', "rows.jsonl:2: invalid JSON"),
        ("[1, 2]\n", "rows.jsonl:1: expected a JSON object"),
        ('{"id": 1}\n', "rows.jsonl:1: no string field 'code'"),
    ],
)
def test_bad_input_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    path = tmp_path / "rows.jsonl"
    if content is not None:
        path.write_text(content)
    code, out, err = run(["lint", str(path)], capsys)
    assert code == EXIT_USAGE and out == []
    assert message in err and err.count("\n") == 1


def test_check_through_a_server(standin: StandIn, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"id": "ok", "code": GOOD, "formal_statement": STATEMENT},
        {"id": "err", "code": GOOD.replace("norm_num", "norm_num -- @error boom")},
        {"id": "sorry", "code": GOOD.replace("norm_num", "sorry")},
    ]
    path = write_rows(tmp_path / "rows.jsonl", rows)
    code, out, err = run(["check", str(path), "--url", standin.url, "--cache", str(tmp_path / "c.sqlite")], capsys)
    assert code == EXIT_FAILED
    assert [(o["id"], o["kind"], o["ok"]) for o in out] == [
        ("ok", "valid", True),
        ("err", "lean_error", False),
        ("sorry", "integrity", False),
    ]
    assert out[2]["violations"] == ["sorry"] and "1/3 valid" in err
    _, again, _ = run(["check", str(path), "--url", standin.url, "--cache", str(tmp_path / "c.sqlite")], capsys)
    assert again[0]["cached"] is True


def test_check_with_the_server_down(dead_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_rows(tmp_path / "rows.jsonl", [{"id": 1, "code": GOOD}])
    code, out, err = run(["check", str(path), "--url", dead_url, "--retries", "0"], capsys)
    assert code == EXIT_INFRA and out[0]["kind"] == "infra" and "could not be verified" in err


def test_serve_has_its_own_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("kimina_verify.server.cli", reason="the server subpackage is absent")
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--help"])
    assert exc.value.code == 0
    assert "kimina-verify serve" in capsys.readouterr().out


def test_help_and_missing_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == EXIT_USAGE
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "lint" in out and "check" in out and "serve" in out and "Exit codes" in out


def test_entry_point_lint_is_fast_and_does_not_load_the_client(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "rows.jsonl", [{"id": 1, "code": GOOD}])
    probe = (
        "import sys, runpy; sys.argv = ['kimina-verify', 'lint', sys.argv[1]];"
        "from kimina_verify.cli import main; code = main();"
        "assert 'kimina_client' not in sys.modules and 'httpx' not in sys.modules, 'client loaded';"
        "sys.exit(code)"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"id": 1, "ok": True, "violations": []}


def test_lint_rows_that_cannot_be_encoded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A lone surrogate (in the code or the id) is that row's verdict, and the output stays valid JSON."""
    rows = [{"id": "\ud800", "code": GOOD.replace("norm_num", "norm_num -- \ud800")}, {"id": "ok", "code": GOOD}]
    code, out, _ = run(["lint", str(write_rows(tmp_path / "rows.jsonl", rows))], capsys)
    assert code == EXIT_FAILED
    assert out == [
        {"id": "\ud800", "ok": False, "violations": ["text_encoding"]},
        {"id": "ok", "ok": True, "violations": []},
    ]
