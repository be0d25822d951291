"""lean-repl-sim against the real REPL's own transcripts, and its protocol, verdict rules and directives."""

import io
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from kimina_format.testing import data_file
from kimina_verify.sim.cli import Simulator, build_parser, serve
from kimina_verify.sim.leanjson import pretty

SIM = [sys.executable, "-m", "kimina_verify.sim"]

# Transcripts the sim reproduces byte for byte (the rest need real tactics, `#check` output or infotrees).
EXACT = {
    "v4.15.0": [
        "Mathlib/test/H20231020",
        "Mathlib/test/H20231110",
        "dup_sorries",
        "enableInitializersExecution",
        "tactic_sorry",
        "term_sorry",
        "unknown_environment",
        "unknown_proof_state",
    ],
    "main": [
        "Mathlib/test/H20231020",
        "Mathlib/test/H20231110",
        "assumption_proof",
        "dup_sorries",
        "import_lean",
        "proof_transitivity",
        "tactic_sorry",
        "term_sorry",
        "unknown_environment",
        "unknown_proof_state",
    ],
}


def transcripts() -> list[dict[str, Any]]:
    with open(data_file("repl_transcripts.jsonl"), encoding="utf-8") as rows:
        return [json.loads(line) for line in rows]


def blocks(output: str) -> list[str]:
    parts = output.split("\n\n")
    assert parts[-1] == "", "every reply ends in a blank line"
    return parts[:-1]


def run_sim(stdin: str, *args: str, cwd: Path | None = None, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SIM, *args], input=stdin, capture_output=True, text=True, encoding="utf-8", cwd=cwd, timeout=timeout
    )


def run_in_process(stdin: str, *args: str) -> str:
    """The sim's replies to commands that neither crash nor hang, without starting a process."""
    out = io.BytesIO()
    serve(Simulator(build_parser().parse_args(args), out), io.BytesIO(stdin.encode("utf-8")))
    return out.getvalue().decode("utf-8")


def cmd(code: str, env: int | None = None) -> str:
    command: dict[str, Any] = {"cmd": code}
    if env is not None:
        command["env"] = env
    return json.dumps(command) + "\n\n"


def replies(output: str) -> list[dict[str, Any]]:
    return [json.loads(block) for block in blocks(output)]


def test_renderer_writes_every_real_reply_byte_for_byte() -> None:
    rows = transcripts()
    count = 0
    for row in rows:
        for block in blocks(row["expected_output"]):
            assert pretty(json.loads(block)) == block, row["case"]
            count += 1
    assert count > 300


@pytest.mark.parametrize(("ref", "case"), [(ref, case) for ref, cases in EXACT.items() for case in cases])
def test_sim_reproduces_real_transcript_exactly(ref: str, case: str) -> None:
    (row,) = [r for r in transcripts() if r["case"] == case and r["repl_ref"] == ref]
    assert run_in_process(row["input"], *(["--backticks"] if ref == "main" else [])) == row["expected_output"]


@pytest.mark.parametrize("ref", ["v4.15.0", "main"])
def test_sim_numbers_environments_like_the_real_repl(ref: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command reply of every transcript: same env number, same REPL-level error, same reply count."""
    (tmp_path / "test").mkdir()
    monkeypatch.chdir(tmp_path)
    checked = 0
    for row in [r for r in transcripts() if r["repl_ref"] == ref]:
        # The REPL's suite runs in its repository: .lean files beside the tests, pickles shared between cases.
        for path in re.findall(r'"path": "([^"]+)"', row["input"]):
            (tmp_path / path).write_text(row["lean_file"] or "", encoding="utf-8")
        output = run_in_process(row["input"], *(["--backticks"] if ref == "main" else []))
        # The REPL joins a command's lines after trimming each one.
        commands = [
            json.loads("".join(ln.rstrip() for ln in b.split("\n"))) for b in row["input"].split("\n\n") if b.strip()
        ]
        expected, got = replies(row["expected_output"]), replies(output)
        assert len(got) == len(expected), row["case"]
        for command, want, have in zip(commands, expected, got, strict=True):
            if "tactic" in command or "proofState" in command:
                continue  # tactic outcomes need real Lean
            assert ("message" in have) == ("message" in want), (row["case"], command, have)
            assert have.get("env") == want.get("env"), (row["case"], command, have)
            checked += 1
    assert checked > 100


def test_exits_cleanly_at_end_of_input() -> None:
    result = run_sim(cmd("theorem t : True := trivial"))
    assert result.returncode == 0
    assert replies(result.stdout) == [{"env": 0}]


@pytest.mark.parametrize("bad", ['{"cmd": \n\n', "not json\n\n", '{"env": 0}\n\n', '{"cmd": 3}\n\n', "\n"])
def test_dies_on_input_it_cannot_parse_like_the_real_repl(bad: str) -> None:
    result = run_sim(cmd("theorem t : True := trivial") + bad + cmd("theorem u : True := trivial"))
    assert result.returncode != 0
    assert replies(result.stdout) == [{"env": 0}], "nothing after the bad command is answered"
    assert "uncaught exception" in result.stderr


def test_skips_comment_queries_and_joins_multiline_commands() -> None:
    stdin = "# a comment query\n\n" + '{"cmd":\n  "def f := 1"}\n\n' + "-- another\n\n" + cmd("def g := 2", 0)
    assert replies(run_sim(stdin).stdout) == [{"env": 0}, {"env": 1}]


def test_environments_do_not_leak_between_siblings() -> None:
    stdin = cmd("import Mathlib") + cmd("theorem t : True := trivial", 0) + cmd("theorem t : True := trivial", 0)
    stdin += cmd("theorem t : 1 = 1 := rfl", 1)
    out = replies(run_sim(stdin).stdout)
    assert out[:3] == [{"env": 0}, {"env": 1}, {"env": 2}]
    assert out[3]["messages"][0]["data"] == "'t' has already been declared"


def test_unknown_environment_is_a_reply_not_a_crash() -> None:
    result = run_sim(cmd("def f := 1", 3) + cmd("def f := 1"))
    assert replies(result.stdout) == [{"message": "Unknown environment."}, {"env": 0}]


def test_sorry_gives_entry_and_warning_in_both_spellings() -> None:
    code = "theorem foo (x : Nat) (h : x = 1) : x = 1 := by\n  sorry"
    old = replies(run_sim(cmd(code)).stdout)[0]
    new = replies(run_sim(cmd(code), "--backticks").stdout)[0]
    assert old["sorries"] == [
        {
            "proofState": 0,
            "pos": {"line": 2, "column": 2},
            "goal": "x : Nat\nh : x = 1\n⊢ x = 1",
            "endPos": {"line": 2, "column": 7},
        }
    ]
    assert old["messages"][0]["data"] == "declaration uses 'sorry'"
    assert old["messages"][0]["pos"] == {"line": 1, "column": 8}
    assert new["messages"][0]["data"] == "declaration uses `sorry`"


def test_sorry_in_comments_or_strings_is_not_a_sorry() -> None:
    code = 'theorem t : True := by\n  -- sorry\n  /- sorry -/\n  trivial\ndef s := "sorry"'
    assert replies(run_sim(cmd(code)).stdout) == [{"env": 0}]


def test_message_directives() -> None:
    code = (
        "theorem t : True := by\n  simp -- sim: error unsolved goals\n-- sim: info Nat : Type\n-- sim: warning careful"
    )
    reply = replies(run_sim(cmd(code)).stdout)[0]
    assert [(m["severity"], m["data"], m["pos"]["line"]) for m in reply["messages"]] == [
        ("error", "unsolved goals", 2),
        ("info", "Nat : Type", 3),
        ("warning", "careful", 4),
    ]


def test_unknown_directive_is_an_error_not_silence() -> None:
    reply = replies(run_sim(cmd("-- sim: erorr typo")).stdout)[0]
    assert reply["messages"][0]["severity"] == "error"


def test_unknown_import_fails_the_header() -> None:
    reply = replies(run_sim(cmd("import Mathlib\nimport NoSuchPackage")).stdout)[0]
    assert reply["messages"][0]["data"] == "unknown module prefix 'NoSuchPackage'"
    assert reply["env"] == 0


def test_crash_exits_mid_reply() -> None:
    result = run_sim(cmd("def a := 1") + cmd("def b := 2 -- sim: crash", 0) + cmd("def c := 3", 0))
    assert result.returncode == 134
    assert result.stdout.endswith('{"env":')
    assert "Stack overflow" in result.stderr


def test_garbage_prints_a_non_json_line_first() -> None:
    result = run_sim(cmd("def a := 1 -- sim: garbage"))
    first = blocks(result.stdout)[0]
    with pytest.raises(json.JSONDecodeError):
        json.loads(first)


def test_hang_never_answers() -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        run_sim(cmd("def a := 1 -- sim: hang"), timeout=1.0)


def test_stderr_chatter_and_huge_replies() -> None:
    result = run_sim(cmd("def a := 1 -- sim: stderr 200000\n-- sim: huge 100000"))
    assert len(result.stderr) > 200_000
    (block,) = blocks(result.stdout)
    assert max(len(line) for line in block.split("\n")) > 65536


def test_alloc_beyond_the_address_space_limit_dies_out_of_memory() -> None:
    script = 'ulimit -v 400000 && exec "$@"'
    result = subprocess.run(
        ["/bin/sh", "-c", script, "sh", *SIM],
        input=cmd("def a := 1") + cmd("def b := 1 -- sim: alloc 1000", 0),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode != 0
    assert "out of memory" in result.stderr
    assert replies(result.stdout) == [{"env": 0}]


def test_cost_model_sleeps_for_imports_and_commands() -> None:
    started = time.monotonic()
    run_sim(
        cmd("import Mathlib") + cmd("def a := 1", 0) + cmd("def b := 1", 0),
        "--import-latency",
        "0.3",
        "--latency",
        "0.2",
    )
    assert 0.7 <= time.monotonic() - started < 5


def test_time_scale_and_recorded_latency(tmp_path: Path) -> None:
    times = tmp_path / "times.jsonl"
    times.write_text('{"repl_time_s": 2.0}\n{"repl_time_s": null}\n', encoding="utf-8")
    started = time.monotonic()
    run_sim(cmd("def a := 1") + cmd("def b := 1", 0), "--latency-from", str(times), "--time-scale", "0.1")
    assert 0.4 <= time.monotonic() - started < 5


def test_help_says_it_is_a_test_double() -> None:
    result = subprocess.run([*SIM, "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0
    assert "TEST DOUBLE" in result.stdout and "never use it to verify proofs" in result.stdout


def recorded_rows() -> list[dict[str, Any]]:
    with open(data_file("recorded_verdicts.jsonl"), encoding="utf-8") as rows:
        return [json.loads(line) for line in rows]


def header_and_body(code: str) -> tuple[str, str]:
    lines = code.split("\n")
    count = 0
    while count < len(lines) and (not lines[count].strip() or lines[count].startswith("import ")):
        count += 1
    return "\n".join(lines[:count]).strip(), "\n".join(lines[count:])


def test_recorded_verdicts_decide_the_reply() -> None:
    """Recorded rows, sent the way the server sends them (header, then body in its env), keep their verdict."""
    rows = recorded_rows()
    with_messages = next(r for r in rows if r["verdict"] and r["messages"])
    failed = next(r for r in rows if not r["verdict"] and not r["messages"] and not r["system_error"])
    passed = next(r for r in rows if r["verdict"] and not r["messages"])
    stdin = cmd(header_and_body(with_messages["full_code"])[0])
    for row in (with_messages, failed, passed):
        stdin += cmd(header_and_body(row["full_code"])[1], 0)
    result = run_sim(stdin, "--verdicts", str(data_file("recorded_verdicts.jsonl")))
    header, kept, rejected, accepted = replies(result.stdout)
    assert header == {"env": 0}
    header_lines = (
        with_messages["full_code"].split("\n").index(header_and_body(with_messages["full_code"])[1].split("\n")[0])
    )
    shifted = [m["pos"]["line"] + header_lines for m in kept["messages"]]
    assert shifted == [m["pos"]["line"] for m in with_messages["messages"]]
    assert all(m["severity"] != "error" for m in kept["messages"])
    assert any(m["severity"] == "error" for m in rejected["messages"])
    assert accepted == {"env": 3}


def test_recorded_timeout_rows_hang() -> None:
    row = next(r for r in recorded_rows() if r["system_error"])
    with pytest.raises(subprocess.TimeoutExpired):
        run_sim(cmd(row["full_code"]), "--verdicts", str(data_file("recorded_verdicts.jsonl")), timeout=2.0)


def test_bad_verdicts_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"full_code": "x", "verdict": true}\nnot json\n', encoding="utf-8")
    result = run_sim("", "--verdicts", str(bad))
    assert result.returncode == 2
    assert "bad.jsonl:2" in result.stderr
