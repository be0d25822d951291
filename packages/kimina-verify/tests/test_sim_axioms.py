"""lean-repl-sim answers `#print axioms` as Lean v4.15 does, so the Verifier's axiom check works against it."""

import io
import json
from typing import Any

from kimina_format.testing import data_file
from kimina_verify.sim.cli import Simulator, build_parser, serve

MATHLIB = "[propext, Classical.choice, Quot.sound]"


def ask(*commands: dict[str, Any], args: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The sim's replies to `commands`, run in this process."""
    out = io.BytesIO()
    stdin = "".join(json.dumps(c) + "\n\n" for c in commands)
    serve(Simulator(build_parser().parse_args(list(args)), out), io.BytesIO(stdin.encode("utf-8")))
    return [json.loads(block) for block in out.getvalue().decode("utf-8").split("\n\n")[:-1]]


def infos(reply: dict[str, Any]) -> list[str]:
    return [m["data"] for m in reply.get("messages", []) if m["severity"] == "info"]


def test_tactic_proof_depends_on_the_mathlib_axioms_at_the_command_line() -> None:
    code = "import Mathlib\n\ntheorem a : 1 + 1 = 2 := by\n  norm_num\n\n#print axioms a"
    (reply,) = ask({"cmd": code})
    assert reply == {
        "messages": [
            {
                "severity": "info",
                "pos": {"line": 6, "column": 0},
                "endPos": {"line": 6, "column": 6},
                "data": f"'a' depends on axioms: {MATHLIB}",
            }
        ],
        "env": 0,
    }


def test_term_proof_depends_on_no_axioms() -> None:
    (reply,) = ask({"cmd": "theorem t : 1 = 1 := rfl\n#print axioms t"})
    assert infos(reply) == ["'t' does not depend on any axioms"]


def test_sorry_and_declared_axioms_are_reported_in_lean_order() -> None:
    code = (
        "axiom Cheat : False\n"
        "lemma helper : 2 = 2 := by\n  sorry\n"
        "theorem main : 1 = 1 := by\n  exact helper ▸ rfl\n"
        "#print axioms main\n#print axioms Cheat"
    )
    (reply,) = ask({"cmd": code})
    # Lean's Name.lt: one-component names first, then by components.
    expected = "[Cheat, propext, sorryAx, Classical.choice, Quot.sound]"
    assert infos(reply) == [f"'main' depends on axioms: {expected}", "'Cheat' depends on axioms: [Cheat, sorryAx]"]


def test_unknown_constant_is_an_error_at_the_name() -> None:
    (reply,) = ask({"cmd": "theorem a : True := trivial\n#print axioms b"})
    assert reply["messages"] == [
        {
            "severity": "error",
            "pos": {"line": 2, "column": 14},
            "endPos": {"line": 2, "column": 15},
            "data": "unknown constant 'b'",
        }
    ]


def test_a_name_must_be_declared_before_the_command() -> None:
    (reply,) = ask({"cmd": "#print axioms late\ntheorem late : True := by trivial"})
    assert reply["messages"][0]["data"] == "unknown constant 'late'"


def test_names_from_the_environment_and_escapes() -> None:
    header, first, second = ask(
        {"cmd": "import Mathlib"},
        {"cmd": "theorem «my thm» : True := by\n  trivial", "env": 0},
        {"cmd": "#print axioms «my thm»\n-- #print axioms ignored", "env": 1},
    )
    assert header == {"env": 0} and first == {"env": 1}
    assert infos(second) == [f"'«my thm»' depends on axioms: {MATHLIB}"]


def recorded_rows() -> list[dict[str, Any]]:
    with open(data_file("recorded_verdicts.jsonl"), encoding="utf-8") as rows:
        return [json.loads(line) for line in rows]


def test_recorded_rows_still_match_with_appended_checks() -> None:
    """The Verifier appends `#print axioms`; recorded rows must keep their verdict and answer it."""
    rows = recorded_rows()
    passed = next(r for r in rows if r["verdict"] and not r["messages"] and "theorem " in r["full_code"])
    failed = next(r for r in rows if not r["verdict"] and not r["system_error"] and "theorem " in r["full_code"])
    replies = []
    for row in (passed, failed):
        name = row["full_code"].split("theorem ", 1)[1].split()[0]
        (reply,) = ask(
            {"cmd": row["full_code"].rstrip() + f"\n\n#print axioms {name}"},
            args=("--verdicts", str(data_file("recorded_verdicts.jsonl"))),
        )
        replies.append((name, reply))
    (name, ok), (bad_name, bad) = replies
    assert ok["messages"] == [
        {
            "severity": "info",
            "pos": {"line": passed["full_code"].rstrip().count("\n") + 3, "column": 0},
            "endPos": {"line": passed["full_code"].rstrip().count("\n") + 3, "column": 6},
            "data": f"'{name}' depends on axioms: {MATHLIB}",
        }
    ]
    assert any(m["severity"] == "error" for m in bad["messages"])
    assert f"'{bad_name}' depends on axioms: [propext, sorryAx, Classical.choice, Quot.sound]" in infos(bad)
