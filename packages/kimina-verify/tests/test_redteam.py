"""Red-team reproducers (see docs/red-team-2026-12.md): attacks that pass the integrity rules, and false rejects.

Each test states what should happen and is marked `xfail(strict=True)` while the hole is open, so the suite stays
green; the rule owner removes the mark with the fix. What real Lean v4.15 would do with each attack is argued in the
report; `test_redteam_lean.py` holds the same cases for a real workspace.
"""

from __future__ import annotations

import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kimina_verify import (
    Checks,
    Endpoint,
    LeanCode,
    Retries,
    Timeouts,
    VerdictKind,
    Verifier,
    VerifierOptions,
    VerifyItem,
    build_check_code,
)
from kimina_verify.attacks import CHEAT, HEADER, PROOF, SIGNATURE, STATEMENT
from kimina_verify.integrity import check_integrity
from kimina_verify.testing import ServerThread, sim_server, sim_settings

# Lean skips the third character of a plain block comment, so `/-/-/` is a whole comment; our lexer sees a nested
# opener there and hides everything up to `-- -/ -/` (a line comment for Lean).
HIDE_OPEN, HIDE_CLOSE = "/-/-/\n", "-- -/ -/\n"
IMPLEMENTED_BY_CHEAT = (
    "def fakeImpl (_ : Unit) : Bool := true\n"
    "@[implemented_by fakeImpl] def really (_ : Unit) : Bool := false\n"
    "theorem cheat : False := by\n"
    "  have h : really () = true := by native_decide\n"
    "  simp [really] at h\n"
)
# `by_elab` (Lean core, `Init/Notation.lean` + `elabRunElab`) runs TermElabM code while a term elaborates: here it adds
# `cheat : False` with `True.intro` as its proof, kernel check off. `#print axioms` then reports no axiom at all.
BY_ELAB_CHEAT = (
    "def helper : Unit := by_elab do\n"
    "  let decl := Lean.Declaration.thmDecl\n"
    "    { name := `cheat, levelParams := [], type := Lean.mkConst ``False, value := Lean.mkConst ``True.intro }\n"
    "  Lean.withOptions (fun o => o.setBool `debug.skipKernelTC true) (Lean.addDecl decl)\n"
    "  return Lean.mkConst ``Unit.unit\n\n"
)
DOTTED_SIGNATURE = SIGNATURE.replace("theorem target", "theorem Hack.target")
CONTEXT_STATEMENT = HEADER + "instance : Fact (1 < 2) := ⟨by norm_num⟩\n\n" + SIGNATURE + "\n  sorry\n"
BY_ELAB_SIGNATURE = (
    "theorem target (x : ℝ) (h₀ : 0 < x) (_ : (by_elab do\n"
    '    discard <| IO.Process.output { cmd := "id" }\n'
    "    return Lean.mkConst ``True : Prop)) : Real.log (x ^ 2) = 2 * Real.log x := by"
)

AUTO_SIGNATURE = "theorem target (x : ℕ) (h : (f x : ℕ) = 2 * x) : f 3 = 6 := by"

# name -> (code, formal statement, why it is a hole)
STATIC_HOLES = {
    "third_char_variable": (
        HEADER + HIDE_OPEN + "variable (cheat : False)\ninclude cheat\n" + HIDE_CLOSE + "\n" + CHEAT,
        STATEMENT,
        "`/-/-/` hides `variable (cheat : False)`/`include cheat` (scores 1 on a server without the extension)",
    ),
    "third_char_implemented_by": (
        HEADER + HIDE_OPEN + IMPLEMENTED_BY_CHEAT + HIDE_CLOSE + "\n" + CHEAT,
        STATEMENT,
        "`/-/-/` hides `@[implemented_by]` + `native_decide`: False with Lean.ofReduceBool, which the default accepts",
    ),
    "by_elab_skip_kernel": (
        HEADER + BY_ELAB_CHEAT + CHEAT,
        STATEMENT,
        "`by_elab` is not a banned word: it adds an unchecked `cheat : False` that depends on no axiom",
    ),
    "check_by_elab": (
        HEADER + '#check (by_elab do\n  discard <| IO.Process.output { cmd := "id" }\n'
        "  return Lean.mkConst ``True : Prop)\n\n" + PROOF,
        STATEMENT,
        "the allowed `#check` elaborates `by_elab`, which runs any IO on the verification host",
    ),
    "reduce_by_elab": (
        HEADER + "#reduce (by_elab return Lean.mkConst ``Nat.zero : ℕ)\n\n" + PROOF,
        STATEMENT,
        "the allowed `#reduce` elaborates `by_elab` too",
    ),
    "variable_question": (
        HEADER + "variable? [cheat : Fact False]\n\n" + CHEAT.replace("cheat.elim", "cheat.out.elim"),
        STATEMENT,
        "Mathlib's `variable?` is `variable` under another word; an instance variable is included without `include`",
    ),
    "dotted_target_namespace": (
        HEADER
        + "noncomputable def Hack.Real.log (x : ℝ) : ℝ := 0\n\n"
        + DOTTED_SIGNATURE
        + "\n  simp [Hack.Real.log]\n",
        HEADER + DOTTED_SIGNATURE + "\n  sorry\n",
        "`theorem Hack.target` elaborates inside `namespace Hack` (expandDeclNamespace?): `Real.log` is the fake one",
    ),
    "context_statement_variable": (
        HEADER + "instance : Fact (1 < 2) := ⟨by norm_num⟩\nvariable (cheat : False)\ninclude cheat\n\n" + CHEAT,
        CONTEXT_STATEMENT,
        "a statement with an instance before its theorem switches the variable/instance rule off for the code",
    ),
    "auto_bound_name_defined": (
        HEADER + "def f (n : ℕ) : ℕ := 2 * n\n\n" + AUTO_SIGNATURE + "\n  rfl\n",
        HEADER + AUTO_SIGNATURE + "\n  sorry\n",
        "`f` is auto-bound in the statement (autoImplicit is on in the REPL); `(f x : ℕ)` reads as a binder to"
        " free_names, so the code's own `def f` is not seen as shadowing",
    ),
    "by_elab_in_statement": (
        HEADER + BY_ELAB_SIGNATURE + "\n  rw [Real.log_pow]\n  norm_num\n",
        HEADER + BY_ELAB_SIGNATURE + "\n  sorry\n",
        "a statement (prove API, dataset row) running IO through `by_elab` passes the statement rules",
    ),
    "statement_header_hidden_eval": (
        HEADER + PROOF,
        "import Mathlib\n"
        + HIDE_OPEN
        + '#eval IO.Process.run { cmd := "id" }\n'
        + HIDE_CLOSE
        + "\n"
        + SIGNATURE
        + "\n  sorry\n",
        "a statement header hiding `#eval` behind `/-/-/` passes check_header; the server elaborates it",
    ),
}


@pytest.mark.parametrize("name", list(STATIC_HOLES))
def test_attack_is_refused_by_the_static_rules(name: str) -> None:
    code, statement, _ = STATIC_HOLES[name]
    assert check_integrity(code, statement)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with sim_server(max_repls=2, timeout=20) as base:
        yield base


@pytest.mark.parametrize("lean_checks", [True, False])
async def test_verifier_does_not_accept_hidden_or_meta_cheats(url: str, lean_checks: bool) -> None:
    items = [VerifyItem(*STATIC_HOLES[n][:2]) for n in ("third_char_implemented_by", "by_elab_skip_kernel")]
    async with Verifier(
        VerifierOptions(Endpoint(url), Timeouts(lean_s=20), Retries(count=0), checks=Checks(lean_checks=lean_checks))
    ) as verifier:
        verdicts = await verifier.verify(items)
    assert [v.kind for v in verdicts] == [VerdictKind.INTEGRITY, VerdictKind.INTEGRITY]


# --- forged replies: code running in the REPL process answers the follow-up itself ---------------------------------

FORGER = '''
"""A REPL stand-in whose snippet takes the process over, as Lean code run by `by_elab` can: it reads stdin.

Until a snippet holds TAKEOVER every command goes to a real lean-repl-sim; from then on this process answers every
command itself, with environment numbers in sequence and each check command's own nonce.
"""
import json, re, subprocess, sys

sim = subprocess.Popen([sys.executable, "-m", "kimina_verify.sim"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
taken, env = False, 0


def read_block(stream):
    lines = []
    while True:
        line = stream.readline()
        if not line:
            return None
        if not line.strip():
            if lines:
                return b"".join(lines).rstrip(b"\\n")
            continue
        lines.append(line)


def forged(cmd):
    global env
    messages = []
    answers = (
        (r'#print "(kimina-nonce [0-9a-f]+)"', "{0}"),
        (r"#print axioms _root_\\.(\\S+)", "'{0}' depends on axioms: [propext]"),
        (r"#print _root_\\.(\\S+)", "theorem {0} : \\u22ef :=\\n\\u22ef"),
        (r"#check _root_\\.(\\S+)", "{0} : the statement's own type"),
    )
    for number, line in enumerate(cmd.split("\\n"), start=1):
        for pattern, text in answers:
            if m := re.match(pattern, line):
                pos = {"line": number, "column": 0}
                messages.append({"severity": "info", "pos": pos, "endPos": pos, "data": text.format(m.group(1))})
                break
    reply = {"env": env, **({"messages": messages} if messages else {})}
    env += 1
    return reply


while (block := read_block(sys.stdin.buffer)) is not None:
    cmd = json.loads(block).get("cmd", "")
    taken = taken or "TAKEOVER" in cmd
    if taken:
        sys.stdout.write(json.dumps(forged(cmd), ensure_ascii=False) + "\\n\\n")
        sys.stdout.flush()
        continue
    sim.stdin.write(block + b"\\n\\n")
    sim.stdin.flush()
    reply = read_block(sim.stdout)
    if b'"env"' in reply:
        env = json.loads(reply)["env"] + 1
    sys.stdout.buffer.write(reply + b"\\n\\n")
    sys.stdout.flush()
'''


async def test_a_snippet_that_takes_the_repl_over_cannot_forge_verdicts(tmp_path: Path) -> None:
    # In real Lean the snippet's `by_elab` code reads the REPL's stdin and writes its stdout: it sees the follow-up
    # command (the nonce is in it), answers it, and keeps answering every later command, other callers' included.
    script = tmp_path / "forger.py"
    script.write_text(textwrap.dedent(FORGER), encoding="utf-8")
    failing = HEADER + SIGNATURE + "\n  exact cheat.elim -- sim: error unknown identifier 'cheat'\n"
    takeover = failing + "  -- TAKEOVER (stands for by_elab code reading the REPL's stdin)\n"
    other = HEADER + SIGNATURE + "\n  norm_num -- sim: error linarith failed\n"
    settings = sim_settings(max_repls=1, timeout=10, repl_cmd=(sys.executable, str(script)))
    with ServerThread(settings) as server:
        async with Verifier(VerifierOptions(Endpoint(server.url), Timeouts(lean_s=10), Retries(count=0))) as verifier:
            honest = await verifier.verify([VerifyItem(failing, STATEMENT)])
            taken = await verifier.verify([VerifyItem(takeover, STATEMENT)])
            later = await verifier.verify([VerifyItem(other, STATEMENT)])
    assert honest[0].kind is VerdictKind.LEAN_ERROR  # the stand-in answers honestly until the takeover
    assert taken[0].kind is not VerdictKind.VALID
    assert later[0].kind is not VerdictKind.VALID  # another caller's failing proof, on the same REPL


# --- cost: the outline is quadratic in the number of declarations ---------------------------------------------------


def _outline_seconds(declarations: int) -> float:
    """Best of three: the time to outline `declarations` one-line declarations (a fresh text each time: no cache)."""
    best = float("inf")
    for run in range(3):
        text = f"-- run {run}\n" + "example:True:=trivial\n" * declarations + "theorem t : True := trivial\n"
        started = time.perf_counter()
        assert LeanCode(text).declarations
        best = min(best, time.perf_counter() - started)
    return best


def test_outline_of_many_declarations_is_linear() -> None:
    # `outline` once looked up the next command start with a scan of every start for every declaration: 20k one-line
    # declarations took about 7 s. Measured as a ratio, so that a loaded machine does not fail it: 4x the
    # declarations cost about 4x when linear and 16x when quadratic; the bound leaves room for noise.
    small, large = _outline_seconds(4_000), _outline_seconds(16_000)
    assert large < 9 * small + 0.05, f"4x the declarations took {large / small:.1f}x the time ({small:.3f}s)"


# --- false rejects: real, Lean-accepted proofs edited harmlessly --------------------------------------------------

FALSE_REJECTS = {
    "helper_in_opened_namespace": (
        HEADER + "lemma Nat.rt_two : (2 : ℕ) = 1 + 1 := by norm_num\n\n" + PROOF,
        "a helper `Nat.x` with the miniF2F header's `open ... Nat ...` is refused as `open`",
    ),
    "comment_glued_to_a_word": (
        HEADER + "lemma rt_helper : True := trivial-- a remark\n\n" + PROOF,
        "`trivial-- remark`: Lean's `whitespace` reads `--` after any token",
    ),
    "comment_glued_to_a_paren": (
        HEADER + PROOF.replace("  norm_num", "  (norm_num)-- done"),
        "`(norm_num)-- done`: no Lean token ends in `)--`",
    ),
    "boxed_remark": (
        HEADER + "/-/- a boxed remark -/\n" + PROOF,
        "`/-/- ... -/` is one closed comment in Lean",
    ),
}


@pytest.mark.parametrize("name", list(FALSE_REJECTS))
def test_harmless_edit_passes(name: str) -> None:
    code, _ = FALSE_REJECTS[name]
    assert check_integrity(code, STATEMENT) == []


def test_escaped_import_is_assembled_as_written() -> None:
    # The header is read from the stripped copy, where `«»` became spaces: `Mathlib. Tactic` is two modules, and the
    # server then refuses `import Tactic` (header_import) although the static rules passed the code.
    code = "import Mathlib.«Tactic»\n" + HEADER + PROOF
    assert check_integrity(code, STATEMENT) == []
    assert "import Tactic" not in build_check_code(code, STATEMENT, lean_checks=True).text.split("\n")


# --- what the stand-in does not model (only real Lean can tell; see test_redteam_lean.py) ---------------------------


@pytest.mark.parametrize("name", ["dotted_target_namespace", "context_statement_variable"])
async def test_stand_in_checks_see_the_changed_meaning(url: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Real Lean's `#check` prints `Hack.Real.log`, or the `cheat` binder that `include` adds: a type mismatch there.
    # The static rules refuse both now; switched off here, so that the second layer is tested on its own.
    monkeypatch.setattr("kimina_verify.client.check_integrity", lambda *args, **kwargs: [])
    code, statement, _ = STATIC_HOLES[name]
    async with Verifier(
        VerifierOptions(Endpoint(url), Timeouts(lean_s=20), Retries(count=0), checks=Checks(lean_checks=True))
    ) as verifier:
        (verdict,) = await verifier.verify([VerifyItem(code, statement)])
    assert verdict.kind is VerdictKind.INTEGRITY
    assert verdict.violations[0].code == "type_mismatch"
