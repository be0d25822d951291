"""The `lean-repl-sim` process: the Lean REPL's stdin/stdout protocol, with a scriptable cost model.

Framing follows the real REPL exactly: a command is the lines up to a blank line, each reply is Lean's pretty JSON
followed by a blank line, end of input exits with status 0 and a command that is not valid JSON kills the process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, BinaryIO, NoReturn

from kimina_verify.sim.elab import Effects, Elaborator, Reply
from kimina_verify.sim.leanjson import pretty
from kimina_verify.sim.recorded import RecordedVerdicts, recorded_times

__all__ = ["DESCRIPTION", "Simulator", "build_parser", "main", "serve"]

DESCRIPTION = """\
lean-repl-sim: a TEST DOUBLE for the Lean REPL (leanprover-community/repl). It speaks the REPL's JSON protocol
on stdin/stdout but does not run Lean: never use it to verify proofs.

Verdicts: code is accepted unless it uses `sorry` (a `sorries` entry and a "declaration uses 'sorry'" warning),
redeclares a name of its environment, or carries a directive comment:
  -- sim: error MESSAGE    an error at that line        -- sim: info TEXT / warning TEXT   other messages
  -- sim: sleep SECONDS    extra latency                -- sim: crash     exit in the middle of the command
  -- sim: hang             never answer                 -- sim: hang-child PIDFILE  hang with a child process
  -- sim: garbage          print a non-JSON line        -- sim: stderr BYTES  write that much to stderr
  -- sim: alloc MB         allocate memory              -- sim: huge CHARS   a message that long
  -- sim: forge            print a forged reply first   -- sim: forge-later S  print one S seconds later
`#print axioms NAME` answers like Lean v4.15: [propext, Classical.choice, Quot.sound] for a proof by tactics,
plus sorryAx if the code has a `sorry` and any declared `axiom`; "unknown constant 'NAME'" for an undeclared name.
`#print "S"`, `#print NAME` and `#check NAME` answer the checks kimina-verify runs in Lean (see its README).
With --verdicts, code that matches a recorded row gets that row's real verdict and time; matching ignores the
header (imports, open, set_option), `#print axioms` lines and blank lines, so code assembled by kimina's client
matches too. Other code follows the rules above, or fails with --unrecorded error.
"""


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of `lean-repl-sim`."""
    parser = argparse.ArgumentParser(
        prog="lean-repl-sim", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--verdicts", metavar="FILE.jsonl", help="recorded verdicts (full_code, verdict, messages)")
    parser.add_argument(
        "--unrecorded",
        choices=("rules", "error"),
        default="rules",
        help="with --verdicts, what code matching no recorded row gets: the rules above (default) or an error",
    )
    parser.add_argument("--import-latency", type=float, default=0.0, metavar="S", help="seconds to run a header")
    parser.add_argument("--latency", type=float, default=0.0, metavar="S", help="seconds per command")
    parser.add_argument(
        "--latency-from", metavar="FILE.jsonl", help="draw each command's latency from the file's repl_time_s values"
    )
    parser.add_argument(
        "--time-scale", type=float, default=1.0, metavar="F", help="multiply every modelled latency by F"
    )
    parser.add_argument("--mem-per-command", type=float, default=0.0, metavar="MB", help="memory kept per command")
    parser.add_argument(
        "--backticks", action="store_true", help="Lean >= v4.28 spelling: declaration uses `sorry` (not 'sorry')"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed for drawn latencies")
    return parser


class Simulator:
    """One simulated REPL process: reads commands, answers them, performs their effects."""

    def __init__(self, args: argparse.Namespace, out: BinaryIO) -> None:
        if args.unrecorded != "rules" and not args.verdicts:
            raise ValueError("--unrecorded needs --verdicts FILE.jsonl")
        recorded = RecordedVerdicts.load(args.verdicts, unrecorded=args.unrecorded) if args.verdicts else None
        self.elab = Elaborator(backticks=args.backticks, recorded=recorded)
        self.args = args
        self.out = out
        self.rng = random.Random(args.seed)
        self.times = recorded_times(args.latency_from) if args.latency_from else None
        self.ballast: list[bytearray] = []
        self.lock = threading.Lock()

    def handle(self, query: str) -> None:
        """Answer one command, or die the way the real REPL does on input it cannot parse."""
        try:
            data = json.loads(query)
        except json.JSONDecodeError as exc:
            _die(f"Could not parse JSON:\n{exc}")
        reply = self.dispatch(data)
        self.perform(reply.effects)
        if reply.effects.garbage:
            self.write("lean-repl-sim: simulated stray output, not JSON\n")
        if reply.effects.forge:
            # What code run by the command could print: a clean success for the environment it will get.
            self.write(pretty({"env": reply.json.get("env", 0)}) + "\n\n")
        if reply.effects.forge_later_s is not None:
            self.forge_later(reply.effects.forge_later_s, reply.json.get("env", 0) + 1)
        self.write(pretty(reply.json) + "\n\n")

    def dispatch(self, data: Any) -> Reply:
        """Route a parsed command by its shape, as the REPL's `parse` does."""
        if not isinstance(data, dict):
            _die("Could not parse as a valid JSON command:\nexpected an object")
        if isinstance(data.get("tactic"), str) and _is_nat(data.get("proofState")):
            return self.elab.tactic(data["proofState"])
        try:
            if isinstance(data.get("pickleTo"), str) and _is_nat(data.get("env")):
                return self.elab.pickle_env(data["env"], data["pickleTo"])
            if isinstance(data.get("unpickleEnvFrom"), str):
                return self.elab.unpickle_env(data["unpickleEnvFrom"])
            if isinstance(data.get("pickleTo"), str) and _is_nat(data.get("proofState")):
                return self.elab.proof_snapshot(data["proofState"])
            if isinstance(data.get("unpickleProofStateFrom"), str):
                return self.elab.proof_snapshot(None)
        except (OSError, ValueError, KeyError) as exc:
            return Reply({"message": str(exc)})
        env = data.get("env")
        if isinstance(data.get("cmd"), str) and (env is None or _is_nat(env)):
            return self.elab.command(data["cmd"], env)
        if isinstance(data.get("path"), str) and (env is None or _is_nat(env)):
            try:
                with open(data["path"], encoding="utf-8") as source:
                    return self.elab.command(source.read(), env)
            except OSError as exc:
                return Reply({"message": str(exc)})
        _die("Could not parse as a valid JSON command:\nno command, tactic, pickle or file shape matches")

    def perform(self, effects: Effects) -> None:
        """Spend the modelled time and memory, and crash or hang when asked to."""
        try:
            megabytes = self.args.mem_per_command + effects.alloc_mb
            if megabytes > 0:
                self.ballast.append(bytearray(b"\x01") * int(megabytes * (1 << 20)))
        except MemoryError:
            sys.stderr.write("INTERNAL PANIC: out of memory\n")
            sys.stderr.flush()
            os._exit(1)
        if effects.stderr_bytes:
            sys.stderr.write("." * effects.stderr_bytes + "\n")
            sys.stderr.flush()
        time.sleep(self.latency(effects))
        if effects.crash:
            self.write('{"env":')  # half a reply, as a process dying mid-print leaves it
            sys.stderr.write("Stack overflow detected. Aborting.\n")
            sys.stderr.flush()
            os._exit(134)
        if effects.hang:
            if effects.hang_child_pidfile:
                child = subprocess.Popen(["sleep", "3600"])
                with open(effects.hang_child_pidfile, "w") as pidfile:
                    pidfile.write(str(child.pid))
            while True:
                time.sleep(3600)

    def latency(self, effects: Effects) -> float:
        """Seconds this command takes: header import, per-command cost (fixed, recorded or drawn), directives."""
        cost: float = self.args.latency
        if effects.recorded_time_s is not None:
            cost = effects.recorded_time_s
        elif self.times is not None:
            cost = self.rng.choice(self.times)
        if effects.imported:
            cost += float(self.args.import_latency)
        return max(cost * float(self.args.time_scale), 0.0) + effects.sleep_s

    def write(self, text: str) -> None:
        """Write and flush at once: the reader waits for the blank line."""
        with self.lock:
            self.out.write(text.encode("utf-8"))
            self.out.flush()

    def forge_later(self, delay_s: float, env: int) -> None:
        """Print a forged reply `delay_s` seconds from now, in the middle of whatever command comes next."""

        def forge() -> None:
            time.sleep(delay_s)
            self.write(pretty({"env": env}) + "\n\n")

        threading.Thread(target=forge, daemon=True).start()


def _read_query(stdin: BinaryIO) -> str:
    """Lines up to a blank line, each right-trimmed and concatenated, plus that line ('' at end of input)."""
    parts: list[str] = []
    while True:
        line = stdin.readline().decode("utf-8", errors="replace")
        if not line.strip():
            return "".join(parts) + line
        parts.append(line.rstrip())


def serve(sim: Simulator, stdin: BinaryIO) -> None:
    """Answer commands from `stdin` until it ends."""
    while True:
        query = _read_query(stdin)
        if query == "":
            return
        if not query.startswith(("#", "--")):
            sim.handle(query)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the simulated REPL until end of input."""
    args = build_parser().parse_args(argv)
    try:
        sim = Simulator(args, sys.stdout.buffer)
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"lean-repl-sim: {exc}\n")
        return 2
    try:
        serve(sim, sys.stdin.buffer)
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    return 0


def _is_nat(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _die(message: str) -> NoReturn:
    # The REPL does not catch parse errors: Lean prints the uncaught exception and the process exits.
    sys.stderr.write("uncaught exception: " + pretty({"message": message}) + "\n")
    sys.stderr.flush()
    os._exit(1)
