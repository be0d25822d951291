"""The REPL driver: it parses every real REPL reply, and turns hangs, crashes and garbage into clean errors."""

import json
import sys
import time
from pathlib import Path

import psutil
import pytest
from kimina_format.testing import data_file
from kimina_verify.server.repl import ReplCrashed, ReplGarbage, ReplProcess, ReplTimeout

SIM = (sys.executable, "-m", "kimina_verify.sim")

# Reads commands the REPL way (blank-line framed) and answers each with the next recorded reply.
REPLAY = """
import sys
replies = open(sys.argv[1], encoding="utf-8").read().split("\\0")
for reply in replies:
    line = sys.stdin.readline()
    while line.strip():
        line = sys.stdin.readline()
    sys.stdout.write(reply)
    sys.stdout.flush()
"""


async def test_driver_parses_every_real_repl_reply(tmp_path: Path) -> None:
    with open(data_file("repl_transcripts.jsonl"), encoding="utf-8") as rows:
        outputs = [json.loads(line)["expected_output"] for line in rows]
    blocks = [block + "\n\n" for output in outputs for block in output.split("\n\n")[:-1]]
    script = tmp_path / "replies"
    script.write_text("\0".join(blocks), encoding="utf-8")
    repl = await ReplProcess.start((sys.executable, "-c", REPLAY, str(script)), header="")
    try:
        for block in blocks:
            assert await repl.send({"cmd": "x", "env": 0}, timeout=10) == json.loads(block)
    finally:
        await repl.close()
    assert len(blocks) > 300


async def test_sends_one_line_json_and_reads_pretty_replies() -> None:
    repl = await ReplProcess.start(SIM, header="")
    try:
        assert await repl.send({"cmd": "import Mathlib"}, timeout=10) == {"env": 0}
        reply = await repl.send({"cmd": 'theorem t : True := by\n  sorry -- "quoted"', "env": 0}, timeout=10)
        assert reply["sorries"][0]["pos"] == {"line": 2, "column": 2}
        assert reply["env"] == 1
    finally:
        await repl.close()
    assert not repl.alive


async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    repl = await ReplProcess.start(SIM, header="")
    with pytest.raises(ReplTimeout):
        await repl.send({"cmd": f"def a := 1 -- sim: hang-child {pidfile}"}, timeout=1.0)
    assert not repl.alive
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while psutil.pid_exists(child) and psutil.Process(child).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the REPL's child survived the timeout"
        time.sleep(0.05)


async def test_crash_is_reported_with_exit_code_and_stderr() -> None:
    repl = await ReplProcess.start(SIM, header="")
    with pytest.raises(ReplCrashed) as info:
        await repl.send({"cmd": "def a := 1 -- sim: crash"}, timeout=10)
    assert info.value.returncode == 134
    assert "Stack overflow" in info.value.stderr_tail
    assert not info.value.out_of_memory


async def test_garbage_output_is_an_error_and_kills_the_repl() -> None:
    repl = await ReplProcess.start(SIM, header="")
    with pytest.raises(ReplGarbage):
        await repl.send({"cmd": "def a := 1 -- sim: garbage"}, timeout=10)
    assert not repl.alive


async def test_reply_over_the_size_limit_is_garbage() -> None:
    repl = await ReplProcess.start(SIM, header="", max_reply_bytes=50_000)
    with pytest.raises(ReplGarbage, match="larger than"):
        await repl.send({"cmd": "def a := 1 -- sim: huge 100000"}, timeout=10)


async def test_stderr_is_drained_so_a_chatty_repl_never_blocks() -> None:
    repl = await ReplProcess.start(SIM, header="")
    try:
        for _ in range(3):  # 3 MiB, far beyond a pipe buffer
            assert "env" in await repl.send({"cmd": "def a := 1 -- sim: stderr 1048576"}, timeout=10)
        assert len(repl.stderr_tail) <= 8192
    finally:
        await repl.close()


async def test_memory_limit_makes_a_greedy_repl_die_out_of_memory() -> None:
    repl = await ReplProcess.start(SIM, header="", memory_limit_mb=400)
    assert await repl.send({"cmd": "def a := 1"}, timeout=10) == {"env": 0}
    assert repl.memory_mb() > 5
    with pytest.raises(ReplCrashed) as info:
        await repl.send({"cmd": "def b := 1 -- sim: alloc 1000"}, timeout=10)
    assert info.value.out_of_memory


async def test_start_failure_is_reported() -> None:
    from kimina_verify.server.repl import ReplStartError

    with pytest.raises(ReplStartError, match="no-such-repl"):
        await ReplProcess.start(("no-such-repl-binary",), header="")


def test_jail_wraps_the_repl_in_bubblewrap_when_the_host_has_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from kimina_verify.server import repl as repl_module
    from kimina_verify.server.repl import ReplStartError, jail_argv

    monkeypatch.setattr(repl_module.shutil, "which", lambda name: None)
    assert jail_argv(["lake", "env", "repl"], "auto", "/w") == ["lake", "env", "repl"]  # off when absent
    with pytest.raises(ReplStartError, match="not installed"):
        jail_argv(["repl"], "bwrap", None)
    monkeypatch.setattr(repl_module.shutil, "which", lambda name: "/usr/bin/bwrap")
    argv = jail_argv(["lake", "env", "repl"], "auto", "/w")
    assert argv[0] == "/usr/bin/bwrap" and argv[-4:] == ["--", "lake", "env", "repl"]
    assert {"--unshare-net", "--die-with-parent"} <= set(argv) and argv[argv.index("--chdir") + 1] == "/w"
    assert jail_argv(["repl"], "off", None) == ["repl"]
    with pytest.raises(ReplStartError, match="unknown jail"):
        jail_argv(["repl"], "docker", None)


async def test_jail_auto_without_bwrap_still_starts_the_repl(monkeypatch: pytest.MonkeyPatch) -> None:
    from kimina_verify.server import repl as repl_module

    monkeypatch.setattr(repl_module.shutil, "which", lambda name: None)
    repl = await ReplProcess.start(SIM, header="", jail="auto")
    assert await repl.send({"cmd": "def a := 1"}, timeout=10) == {"env": 0}
    await repl.close()
