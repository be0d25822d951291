"""Second red-team pass (redteam2): fresh attacks on the reward's Lean side, written without seeing the fixes.

Every attack is a real Lean-accepted proof from `recorded_verdicts.jsonl` (or `kimina_verify.attacks`' statement)
turned into a cheat; each case says in one line why real Lean v4.15 + Mathlib would accept it, so that it truly scores
1 unless something refuses it. Each attack must be refused by the static rules (`check_integrity`, what
`kimina-verify lint` runs) and must not come back `valid` from the `Verifier` against the stand-in server; each
harmless look-alike must pass both. Cases that failed on main at 7c027c9 say why in
`hole`/`sim_hole` (or `false_reject`); all are fixed (harden), so every case is strict.

Root causes found (beyond the first pass, docs/red-team-2026-12.md):

- **The assembly drops `«`** (`assembly.build_check_code` re-emits the model's header lines from the lexer's
  *stripped* copy, where `«»` became spaces): a header line ending in `«` opens an escaped name for the rules, which
  then see one identifier up to the next `»`, while Lean gets the line without its `«` and reads everything up to
  that `»` (put in a line comment) as code. Any command hides there: `variable`, `@[implemented_by]`, `#eval`,
  `run_cmd`, `set_option debug.skipKernelTC`, `axiom`, or a phantom `theorem` that opens a `/-` swallowing the
  visible one.
- **The statement is compared only up to its first `:=`**: a type with a top-level `let`/`have` (`theorem t : let y
  := 2; y + y = 4`) matches any code whose type starts the same way, `theorem t : let y := 2; True := trivial`.
- **Tactic configurations and `eval%` run unsafe code**: the config elaborators Lean's `declare_config_elab` makes
  (`simp (config := e)`, and Mathlib's `norm_num`, which reads a simp config) and Mathlib's `eval%` evaluate their
  term with `evalExpr (safety := .unsafe)`, so `unsafeIO` (not the keyword `unsafe`) runs any IO while the proof
  elaborates.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from kimina_format.testing import data_file
from kimina_verify import (
    Checks,
    Endpoint,
    Retries,
    Timeouts,
    VerdictKind,
    Verifier,
    VerifierOptions,
    VerifyItem,
    build_check_code,
)
from kimina_verify.attacks import HEADER, SIGNATURE
from kimina_verify.attacks import STATEMENT as LOG_STATEMENT
from kimina_verify.integrity import check_integrity
from kimina_verify.testing import sim_server

# --- bases: real proofs that Lean accepted ---------------------------------------------------------------------------

_ROWS = {
    row["name"]: row
    for row in map(json.loads, data_file("recorded_verdicts.jsonl").read_text(encoding="utf-8").splitlines())
    if row.get("verdict") is True
}


@dataclass(frozen=True)
class Base:
    """A recorded, Lean-accepted proof split into its header, signature (up to `:= by`) and tactic body."""

    header: str
    signature: str
    body: str

    @property
    def code(self) -> str:
        return self.header + self.signature + self.body

    @property
    def statement(self) -> str:
        return self.header + self.signature + "\n  sorry\n"

    @property
    def name(self) -> str:
        return self.signature.split()[1]


def _base(name: str) -> Base:
    code = _ROWS[name]["full_code"]
    start = code.index("theorem ")
    end = code.index(":= by", start) + len(":= by")
    return Base(code[:start], code[start:end], code[end:])


LINEAR = _base("mathd_algebra_427")  # `linarith` after a few `have`s
COMPLEX = _base("mathd_algebra_313")  # `field_simp` on ℂ
NATIVE = _base("mathd_numbertheory_233")  # `native_decide` on `ZMod 121`
LOG = Base(HEADER, SIGNATURE, "\n  rw [Real.log_pow]\n  norm_num\n")  # kimina_verify.attacks' statement
assert LOG.statement == LOG_STATEMENT


def _open_line(base: Base) -> str:
    """The base's `open ...` header line (the miniF2F header has exactly one)."""
    return next(line for line in base.header.split("\n") if line.startswith("open "))


def _escaped_header(base: Base, hidden: str, *, visible: str | None = None) -> str:
    """`hidden` after the header's `open` line ending in `«`, closed by `-- »`: one name for the rules, code for Lean.

    The rules lex `«\\n<hidden>\\n-- »` as one escaped identifier; `build_check_code` re-emits the header line from
    the stripped copy (`open ... Rat`, the `«` gone) and sends the rest raw, so Lean reads `hidden` as commands and
    `-- »` as a comment. `visible` replaces the base's own proof after it.
    """
    line = _open_line(base)
    header = base.header.replace(line, line + " «", 1)
    rest = base.signature + base.body if visible is None else visible
    return header + hidden.rstrip("\n") + "\n-- »\n\n" + rest


IMPLEMENTED_BY_CHEAT = (
    "def fakeImpl (_ : Unit) : Bool := true\n"
    "@[implemented_by fakeImpl] def really (_ : Unit) : Bool := false\n"
    "theorem cheat : False := by\n"
    "  have h : really () = true := by native_decide\n"
    "  simp [really] at h\n"
)
UNCHECKED_DECL = (
    "run_cmd Lean.Elab.Command.liftCoreM do\n"
    "  let decl := Lean.Declaration.thmDecl\n"
    "    { name := `cheat, levelParams := [], type := Lean.mkConst ``False, value := Lean.mkConst ``True.intro }\n"
    "  Lean.withOptions (fun o => o.setBool `debug.skipKernelTC true) (Lean.addDecl decl)\n"
)
# `unsafeIO` (Init/System/IO.lean) is an `unsafe def`; code evaluated with `safety := .unsafe` may call it.
IO_VALUE = '(match unsafeIO (IO.Process.run { cmd := "id" }) with | .ok s => 100000 + s.length | .error _ => 100000)'


EVAL_SIGNATURE = LINEAR.signature.replace(
    " : x + y + z = 12", f" (_ : (eval% {IO_VALUE} : ℕ) = eval% {IO_VALUE}) : x + y + z = 12"
)


def _cheat(base: Base) -> str:
    return base.signature + "\n  exact cheat.elim\n"


def _let_statement(body: str) -> str:
    return HEADER + "theorem target : " + body + " := by\n  sorry\n"


@dataclass(frozen=True)
class Attack:
    """One attack: the code, the statement it claims to prove, its class, and why real Lean accepts it."""

    name: str
    kind: str  # the class of issue 16/18, as in the report
    code: str
    statement: str
    lean: str  # why real Lean v4.15 would accept it (so it scores 1 unless refused)
    hole: str | None = None  # why it passes the static rules on main (None: refused there)
    sim_hole: str | None = None  # why the Verifier against the stand-in returns `valid` on main
    sim_modes: tuple[str, ...] = ("checks", "fallback")  # where it does (checks in Lean, appended `#print axioms`)


ATTACKS = [
    # --- class 1: lexer and assembly disagreements with Lean ------------------------------------------------------
    Attack(
        "escaped_header_variable",
        "1 lexer",
        _escaped_header(LINEAR, "variable (cheat : False)\ninclude cheat", visible=_cheat(LINEAR)),
        LINEAR.statement,
        "Lean gets `open ... Rat` then `variable (cheat : False)`/`include cheat` as commands; `#print axioms` is"
        " empty (fallback valid); with the checks the binder shows in the type",
        hole="the assembly drops the header's `«`: the rules see one name, Lean sees `variable`/`include`",
        sim_hole="the stand-in accepts the code the assembly sent",
    ),
    Attack(
        "escaped_header_implemented_by",
        "1 lexer",
        _escaped_header(COMPLEX, IMPLEMENTED_BY_CHEAT, visible=_cheat(COMPLEX)),
        COMPLEX.statement,
        "`native_decide` runs the compiled `fakeImpl` (true), the kernel unfolds `really` (false): `cheat : False`"
        " with only Lean.ofReduceBool, which the default policy accepts; the target's type is unchanged",
        hole="the assembly drops the header's `«`: `@[implemented_by]` reaches Lean unseen",
        sim_hole="the stand-in accepts the code the assembly sent",
    ),
    Attack(
        "escaped_set_option_skip_kernel",
        "1 lexer",
        LINEAR.header.replace("set_option maxHeartbeats 0", "set_option maxHeartbeats 0 «", 1)
        + "set_option debug.skipKernelTC true\n-- »\n\n"
        + LINEAR.signature
        + LINEAR.body,
        LINEAR.statement,
        "the assembly even lifts `set_option debug.skipKernelTC true` into the sent header (a stripped header line);"
        " the proof itself is the real one, so Lean accepts, with the kernel off for everything after",
        hole="an option the allow-list refuses reaches Lean's header through the stripped copy",
        sim_hole="the stand-in accepts the code the assembly sent",
    ),
    Attack(
        "escaped_import_line",
        "1 lexer",
        LINEAR.header.replace("import Aesop", "import Aesop «", 1)
        + "variable (cheat : False)\ninclude cheat\n-- »\n\n"
        + _cheat(LINEAR),
        LINEAR.statement,
        "as escaped_header_variable, on an `import` line",
    ),
    Attack(
        "boxed_remark_hides_variable",
        "1 lexer",
        LINEAR.header + "/-/- note -/\nvariable (cheat : False)\ninclude cheat\n-- -/\n\n" + _cheat(LINEAR),
        LINEAR.statement,
        "Lean skips the 3rd character of `/-`, so `/-/- note -/` closes at its `-/`: `variable`/`include` are code",
        hole="our lexer opens a nested comment at `/-/-` and hides the commands until `-- -/`",
        sim_hole="the stand-in's mask has the same nesting",
    ),
    Attack(
        "boxed_remark_hides_implemented_by",
        "1 lexer",
        NATIVE.header + "/-/--/\n" + IMPLEMENTED_BY_CHEAT + "-- -/\n\n" + _cheat(NATIVE),
        NATIVE.statement,
        "`/-/--/` is one comment for Lean (3rd char skipped, then `-/`); the `implemented_by` cheat follows as code",
        hole="our lexer reads `/-` at the 3rd character and waits for a second `-/`",
        sim_hole="the stand-in's mask has the same nesting",
    ),
    # --- class 2: same tokens, different meaning ------------------------------------------------------------------
    Attack(
        "escaped_header_namespace_shadow",
        "2 meaning",
        _escaped_header(
            LOG,
            "namespace Hack\nnoncomputable def Real.log (x : ℝ) : ℝ := 0\n"
            "theorem _root_.target (x : ℝ) (h₀ : 0 < x) : Real.log (x ^ 2) = 2 * Real.log x := by\n"
            "  simp [Real.log]\nend Hack\n/- »",
            visible=LOG.signature + "\n  simp\n-- -/\n",
        ),
        LOG.statement,
        "inside `namespace Hack` the statement's `Real.log` is `Hack.Real.log := 0`; the visible proof is in the"
        " `/- ... -/` Lean reads after the name; fallback: no axioms",
        hole="the assembly drops the header's `«`: namespace, `_root_` and the fake `Real.log` are never seen",
        sim_hole="the stand-in accepts the code the assembly sent (on rtfix at 6f1a29c with the checks too: the"
        " stand-in misses the `_root_` theorem's namespace; real Lean prints `Hack.Real.log`, a type mismatch)",
    ),
    Attack(
        "auto_bound_two_argument_ascription",
        "2 meaning",
        HEADER + "def g (m n : ℕ) : ℕ := m + n\n\n"
        "theorem target (a b : ℕ) (h₀ : (g a b : ℕ) = a + b) : g 2 3 = 5 := by\n  rfl\n",
        HEADER + "theorem target (a b : ℕ) (h₀ : (g a b : ℕ) = a + b) : g 2 3 = 5 := by\n  sorry\n",
        "autoImplicit makes `g` a universally bound function in the statement (false for most `g`); the code's own"
        " `def g` makes `g 2 3 = 5` true by `rfl`",
        hole="`(g a b : ℕ)` reads as a binder to free_names, so `def g` is no shadowing",
        sim_hole="the stand-in models neither auto-bound implicits nor name resolution",
    ),
    Attack(
        "open_scoped_classical",
        "2 meaning",
        LINEAR.header + "open scoped Classical\n\n" + LINEAR.signature + LINEAR.body,
        LINEAR.statement,
        "`open scoped` switches scoped instances on for the statement (harmless here, refused as a class)",
    ),
    Attack(
        "auto_implicit_off",
        "2 meaning",
        LINEAR.header + "set_option autoImplicit false in\n" + LINEAR.signature + LINEAR.body,
        LINEAR.statement,
        "an option outside the allow-list that changes how the statement elaborates",
    ),
    Attack(
        "local_instance_attribute_in",
        "2 meaning",
        LINEAR.header + "attribute [local instance] Classical.propDecidable in\n" + LINEAR.signature + LINEAR.body,
        LINEAR.statement,
        "a local instance for the target's own elaboration (instances before the target are refused)",
    ),
    # --- class 3: phantom targets (the statement found in the wrong place) ------------------------------------------
    Attack(
        "let_type_truncated",
        "3 phantom",
        HEADER + "theorem target : let y := 2; True := trivial\n",
        _let_statement("let y := 2; y + y = 4"),
        "`let y := 2; True` is defeq to `True`, so `trivial` proves it; no axioms (fallback valid)",
        hole="the statement is compared only up to its first `:=`, inside the type's `let`",
        sim_hole="the stand-in compares the type as the rules do",
    ),
    Attack(
        "have_type_truncated",
        "3 phantom",
        HEADER + "theorem target : have y := 2; True := trivial\n",
        _let_statement("have y := 2; y + y = 4"),
        "`have y := 2; True` is `(fun y => True) 2`, defeq to `True`",
        hole="the statement is compared only up to its first `:=`, inside the type's `have`",
        sim_hole="the stand-in compares the type as the rules do",
    ),
    Attack(
        "let_type_truncated_multiline",
        "3 phantom",
        HEADER + "theorem target :\n    let f := fun (n : ℕ) => n + 1\n    True := trivial\n",
        HEADER + "theorem target :\n    let f := fun (n : ℕ) => n + 1\n    f 1 = 3 := by\n  sorry\n",
        "the weakened type is `True` after a `let`; the dataset's (false) `f 1 = 3` is never compared",
        hole="the statement is compared only up to its first `:=`, inside the type's `let`",
        sim_hole="the stand-in compares the type as the rules do",
    ),
    Attack(
        "escaped_header_phantom_target",
        "3 phantom",
        _escaped_header(
            LINEAR,
            f"theorem {LINEAR.name} : True := trivial /- »",
            visible=LINEAR.signature + "\n  exact cheat.elim\n-- -/\n",
        ),
        LINEAR.statement,
        "Lean's target is `theorem ... : True := trivial`; the visible (never elaborated) target sits inside the"
        " `/- ... -/`; fallback `#print axioms`: none",
        hole="the rules compare the visible theorem, which Lean reads as a comment",
        sim_hole="the stand-in accepts the code the assembly sent",
        sim_modes=("fallback",),
    ),
    Attack(
        "target_in_namespace",
        "3 phantom",
        LINEAR.header + "namespace Helpers\n" + LINEAR.signature + LINEAR.body + "\nend Helpers\n",
        LINEAR.statement,
        "the theorem is `Helpers.<name>`: the dataset's name is never declared",
    ),
    # --- class 4: the axiom check not tied to the target ---------------------------------------------------------
    Attack(
        "escaped_header_axiom",
        "4 axioms",
        _escaped_header(COMPLEX, "axiom cheat : False", visible=_cheat(COMPLEX)),
        COMPLEX.statement,
        "Lean accepts the axiom; only `#print axioms` of the target can notice `cheat`",
        hole="the assembly drops the header's `«`: the `axiom` keyword is never seen",
    ),
    Attack(
        "escaped_header_pp_deep_terms",
        "4 axioms",
        _escaped_header(
            LOG,
            "set_option pp.deepTerms false\nset_option pp.deepTerms.threshold 0\n"
            "namespace Hack\nnoncomputable def Real.log (x : ℝ) : ℝ := 0\n"
            "theorem _root_.target (x : ℝ) (h₀ : 0 < x) : Real.log (x ^ 2) = 2 * Real.log x := by\n"
            "  simp [Real.log]\nend Hack\n/- »",
            visible=LOG.signature + "\n  simp\n-- -/\n",
        ),
        LOG.statement,
        "`pp.deepTerms` is not among the options the checks set: the printed type elides subterms as `⋯`",
        hole="the assembly drops the header's `«`: the printing options and the shadow are never seen",
        sim_hole="the shadowed `Real.log` is accepted (fallback on main; with the checks too on rtfix at 6f1a29c,"
        " where real Lean would print `⋯` under `pp.deepTerms false`: `type_unchecked`)",
    ),
    Attack(
        "escaped_header_exit",
        "4 axioms",
        _escaped_header(LINEAR, "theorem cheat : True := trivial\n#exit", visible=_cheat(LINEAR)),
        LINEAR.statement,
        "`#exit` ends the file without an error: the cheating target and the appended `#print axioms` never run",
        hole="the assembly drops the header's `«`: `#exit` is never seen",
        sim_hole="the stand-in does not model `#exit` (real Lean: no target, no axioms reply)",
        sim_modes=("checks", "fallback"),
    ),
    # --- class 5: forged replies and meta-code entry points -------------------------------------------------------
    Attack(
        "escaped_header_eval_io",
        "5 meta",
        _escaped_header(LINEAR, '#eval IO.Process.run { cmd := "id" }'),
        LINEAR.statement,
        "`#eval` runs any IO on the verification host; its output is an info message, the proof is the real one",
        hole="the assembly drops the header's `«`: `#eval` is never seen",
        sim_hole="the stand-in does not run `#eval`",
    ),
    Attack(
        "escaped_header_run_cmd_unchecked",
        "5 meta",
        _escaped_header(COMPLEX, UNCHECKED_DECL, visible=_cheat(COMPLEX)),
        COMPLEX.statement,
        "`run_cmd` adds `cheat : False := True.intro` with the kernel off: no axiom, type unchanged, checks pass",
        hole="the assembly drops the header's `«`: `run_cmd` is never seen",
        sim_hole="the stand-in accepts the code the assembly sent",
    ),
    Attack(
        "escaped_header_stdout_forgery",
        "5 meta",
        _escaped_header(
            LINEAR,
            "#eval show IO Unit from do\n"
            '  let out ← IO.FS.Handle.mk "/dev/stdout" .write\n'
            "  out.putStrLn (String.mk [Char.ofNat 123, Char.ofNat 125])\n"
            "  out.flush",
        ),
        LINEAR.statement,
        "`#eval` isolates `IO.getStdout`, not a fresh handle on /dev/stdout: a reply of its own reaches the driver",
        hole="the assembly drops the header's `«`: `#eval` is never seen",
        sim_hole="the stand-in does not run `#eval`",
    ),
    Attack(
        "simp_config_unsafe_io",
        "5 meta",
        LINEAR.header
        + LINEAR.signature
        + f"\n  try simp (config := {{ maxSteps := {IO_VALUE} }}) only []"
        + LINEAR.body,
        LINEAR.statement,
        "declare_config_elab evaluates the config with `evalExpr (safety := .unsafe)`: `unsafeIO` runs IO while the"
        " tactic elaborates (`try` hides simp's 'no progress'); the real proof follows",
        hole="`unsafeIO` is not the keyword `unsafe`, and tactic configs are not meta code to the rules",
        sim_hole="the stand-in does not run tactic configurations",
    ),
    Attack(
        "norm_num_config_unsafe_io",
        "5 meta",
        COMPLEX.code.rstrip().removesuffix("norm_num") + f"norm_num (config := {{ maxSteps := {IO_VALUE} }})\n",
        COMPLEX.statement,
        "Mathlib's norm_num elaborates its config with elabSimpConfig (declare_config_elab, `safety := .unsafe`)",
        hole="`unsafeIO` is not the keyword `unsafe`, and tactic configs are not meta code to the rules",
        sim_hole="the stand-in does not run tactic configurations",
    ),
    Attack(
        "eval_percent_unsafe_io",
        "5 meta",
        LINEAR.header + f"def probe : ℕ := eval% {IO_VALUE}\n\n" + LINEAR.signature + LINEAR.body,
        LINEAR.statement,
        "Mathlib's `eval%` (Mathlib/Tactic/Eval.lean) runs `evalExpr Expr ... (safety := .unsafe)` on its term",
        hole="`eval%` is an ordinary identifier and `%` a symbol to the rules",
        sim_hole="the stand-in does not run `eval%`",
    ),
    Attack(
        "check_eval_percent",
        "5 meta",
        LINEAR.header + f"#check (eval% {IO_VALUE} : ℕ)\n\n" + LINEAR.signature + LINEAR.body,
        LINEAR.statement,
        "the allowed `#check` elaborates `eval%`, which runs IO",
        hole="`#check` is allowed and `eval%` is not meta code to the rules",
        sim_hole="the stand-in does not run `eval%`",
    ),
    # --- class 6: statements and headers (prove API, dataset rows) ----------------------------------------------
    Attack(
        "statement_boxed_remark_eval",
        "6 headers",
        LINEAR.code,
        'import Mathlib\nimport Aesop\n/-/- note -/\n#eval IO.Process.run { cmd := "id" }\n-- -/\n\n'
        + LINEAR.signature
        + "\n  sorry\n",
        "the statement's header holds `#eval` after a comment Lean closes at `-/`; the server elaborates it",
        hole="check_header's lexer hides `#eval` inside `/-/- ... -- -/`",
        sim_hole="the stand-in does not run `#eval`",
    ),
    Attack(
        "statement_escaped_open",
        "6 headers",
        LINEAR.code,
        'import Mathlib\nopen Real «\n#eval IO.Process.run { cmd := "id" }\n-- »\n\n'
        + LINEAR.signature
        + "\n  sorry\n",
        "a statement header line ending in `«`: stripped, it would run `#eval` as for code",
    ),
    Attack(
        "statement_escaped_set_option",
        "6 headers",
        LINEAR.code,
        "import Mathlib\nset_option maxHeartbeats 400000 «\nset_option debug.skipKernelTC true\n-- »\n\n"
        + LINEAR.signature
        + "\n  sorry\n",
        "a statement header line ending in `«` around a refused option",
    ),
    Attack(
        "statement_lone_cr_header",
        "6 headers",
        LINEAR.code,
        "import Mathlib\rset_option debug.skipKernelTC true\n\n" + LINEAR.signature + "\n  sorry\n",
        "a lone CR is whitespace in v4.15: the option is a header command on the 'same line' as the import",
    ),
    Attack(
        "statement_eval_percent",
        "6 headers",
        LINEAR.header + EVAL_SIGNATURE + LINEAR.body,
        LINEAR.header + EVAL_SIGNATURE + "\n  sorry\n",
        "a statement (prove API, dataset row) whose binder type runs `eval%`: IO on the Lean host for every attempt"
        " and again when the server elaborates the statement for the checks",
        hole="`unsafeIO` under `eval%` passes check_statement",
        sim_hole="the stand-in does not run `eval%`",
    ),
    # --- class 7: text hygiene --------------------------------------------------------------------------------------
    Attack(
        "low_surrogate_in_name",
        "7 text",
        LINEAR.code.replace(LINEAR.name, LINEAR.name + "\udc80", 1),
        LINEAR.statement.replace(LINEAR.name, LINEAR.name + "\udc80", 1),
        "UTF-8 cannot encode it: the sample must get its own verdict",
    ),
    Attack(
        "del_in_comment",
        "7 text",
        LINEAR.header + "-- \x7f\n" + LINEAR.signature + LINEAR.body,
        LINEAR.statement,
        "a DEL control character",
    ),
    Attack(
        "nul_in_statement_header",
        "7 text",
        LINEAR.code,
        LINEAR.statement.replace("import Aesop", "import Aesop\x00", 1),
        "NUL in the statement",
    ),
    Attack(
        "over_the_byte_limit",
        "7 text",
        LINEAR.header + "/-" + "é" * 600_000 + "-/\n" + LINEAR.signature + LINEAR.body,
        LINEAR.statement,
        "1.2 MB of two-byte characters (under 1 Mi characters, over 1 MiB)",
    ),
]
_BY_NAME = {a.name: a for a in ATTACKS}


@dataclass(frozen=True)
class LookAlike:
    """Harmless code that looks like an attack: real Lean accepts it and it proves the statement."""

    name: str
    code: str
    statement: str
    false_reject: str | None = None  # why main refuses it


_LIN = LINEAR.signature + LINEAR.body
LOOKALIKES = [
    LookAlike("unchanged_linear", LINEAR.code, LINEAR.statement),
    LookAlike("unchanged_complex", COMPLEX.code, COMPLEX.statement),
    LookAlike("unchanged_native", NATIVE.code, NATIVE.statement),
    LookAlike("escaped_open_name", LINEAR.header.replace("Rat", "Rat «Finset»") + _LIN, LINEAR.statement),
    LookAlike(
        "escaped_helper", LINEAR.header + "lemma «helper with spaces» : True := trivial\n\n" + _LIN, LINEAR.statement
    ),
    LookAlike(
        "escaped_name_in_parens",
        LINEAR.header
        + "lemma «my helper» : (2 : ℝ) = 1 + 1 := by norm_num\n\n"
        + LINEAR.signature
        + "\n  have := («my helper»)\n"
        + LINEAR.body,
        LINEAR.statement,
        false_reject="`(«` is `lexer_ambiguous`: no Lean token ends in `(`",
    ),
    LookAlike(
        "braces_in_plain_string",
        LINEAR.header + 'def note : String := "{x}"\n\n' + _LIN,
        LINEAR.statement,
        false_reject="a string after `:=` holding `{` is refused as possibly interpolated",
    ),
    LookAlike(
        "open_in_helper",
        LINEAR.header + "open Finset in\nlemma helper : (2 : ℝ) = 1 + 1 := by norm_num\n\n" + _LIN,
        LINEAR.statement,
    ),
    LookAlike(
        "noncomputable_section", LINEAR.header + "noncomputable section\n\n" + _LIN + "\nend\n", LINEAR.statement
    ),
    LookAlike("local_simp_in", LINEAR.header + "attribute [local simp] mul_comm in\n" + _LIN, LINEAR.statement),
    LookAlike("nested_comment", LINEAR.header + "/- outer /- inner -/ still outer -/\n" + _LIN, LINEAR.statement),
    LookAlike(
        "raw_string_with_openers",
        LINEAR.header + 'def r : String := r#"a "quoted" -- not a comment /-"#\n\n' + _LIN,
        LINEAR.statement,
    ),
    LookAlike("char_quote", LINEAR.header + "def q : Char := '\\''\n\n" + _LIN, LINEAR.statement),
    LookAlike("string_gap", LINEAR.header + 'def s : String := "ab\\\n  cd"\n\n' + _LIN, LINEAR.statement),
    LookAlike(
        "recursive_helper",
        LINEAR.header + "def fib : ℕ → ℕ\n  | 0 => 0\n  | 1 => 1\n  | n + 2 => fib n + fib (n + 1)\n\n" + _LIN,
        LINEAR.statement,
    ),
    LookAlike("doc_on_target", LINEAR.header + "/-- Solve the system with `linarith`. -/\n" + _LIN, LINEAR.statement),
    LookAlike("instance_after_target", LINEAR.code + "\ninstance : Inhabited (Fin 3) := ⟨0⟩\n", LINEAR.statement),
    LookAlike("open_scoped_after_target", LINEAR.code + "\nopen scoped Classical\n", LINEAR.statement),
    LookAlike(
        "haveI_inside",
        LINEAR.header + LINEAR.signature + "\n  haveI : Fact (1 < 2) := ⟨by norm_num⟩" + LINEAR.body,
        LINEAR.statement,
    ),
    LookAlike(
        "unicode_comment",
        LINEAR.header + "-- ∀ ε > 0, ∃ δ > 0 — «note» “quoted” 'x' \u3000\n" + _LIN,
        LINEAR.statement,
    ),
    LookAlike(
        "let_type_proved",
        HEADER + "theorem target : let y := 2; y + y = 4 := by\n  intro y\n  norm_num [y]\n",
        _let_statement("let y := 2; y + y = 4"),
    ),
    LookAlike(
        "simp_config_plain",
        LINEAR.header + LINEAR.signature + "\n  simp (config := { maxSteps := 100000 }) only []" + LINEAR.body,
        LINEAR.statement,
    ),
    LookAlike("decide_native", NATIVE.code, NATIVE.statement),
    LookAlike("check_after_target", LINEAR.code + f"\n#check {LINEAR.name}\n", LINEAR.statement),
    LookAlike("log_statement", LOG.code, LOG.statement),
]


def _attack_param(attack: Attack, hole: str | None) -> object:
    # Every hole is closed (harden): `hole` stays as the record of why main let it through; the test is strict.
    return pytest.param(attack.name, id=attack.name)


@pytest.mark.parametrize("name", [_attack_param(a, a.hole) for a in ATTACKS])
def test_attack_is_refused_by_the_static_rules(name: str) -> None:
    attack = _BY_NAME[name]
    assert check_integrity(attack.code, attack.statement), attack.lean


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(la.name, id=la.name)  # `false_reject`: why main refused it (fixed in harden)
        for la in LOOKALIKES
    ],
)
def test_lookalike_passes_the_static_rules(name: str) -> None:
    lookalike = next(la for la in LOOKALIKES if la.name == name)
    assert check_integrity(lookalike.code, lookalike.statement) == []


# --- the assembly: what reaches Lean is what the rules read ----------------------------------------------------------


@pytest.mark.parametrize("lean_checks", [True, False])
def test_hidden_commands_never_reach_lean_unrefused(lean_checks: bool) -> None:
    # Whatever the rules let through, the text sent to Lean must not hold a command the rules never saw.
    attack = _BY_NAME["escaped_header_variable"]
    if check_integrity(attack.code, attack.statement):
        return
    sent = build_check_code(attack.code, attack.statement, lean_checks=lean_checks).text
    assert "\nvariable (cheat : False)" not in sent


def test_check_integrity_never_raises_on_deep_or_odd_text() -> None:
    # Class 7: a verdict for the sample, never an exception for the batch (deep nesting, odd line breaks).
    texts = [
        LINEAR.header + "def d : ℕ := " + "(" * 20_000 + "1" + ")" * 20_000 + "\n\n" + _LIN,
        LINEAR.header + "-- a\u2028variable (cheat : False)\u2029\u0085\n" + _LIN,
        LINEAR.header + "«" * 5_000 + "\n" + _LIN,
        LINEAR.header + "/-" * 50_000 + "\n" + _LIN,
    ]
    for text in texts:
        assert isinstance(check_integrity(text, LINEAR.statement), list)


# --- the Verifier against the stand-in --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with sim_server(max_repls=2, timeout=20) as base:
        yield base


_VERIFIER_ATTACKS = ATTACKS


@pytest.mark.parametrize(
    ("name", "mode"),
    [
        pytest.param(a.name, mode, id=f"{a.name}-{mode}")  # `sim_hole`: why main's stand-in said `valid`
        for a in _VERIFIER_ATTACKS
        for mode in ("checks", "fallback")
    ],
)
async def test_verifier_does_not_accept_the_attack(url: str, name: str, mode: str) -> None:
    attack, lean_checks = _BY_NAME[name], mode == "checks"
    async with Verifier(
        VerifierOptions(Endpoint(url), Timeouts(lean_s=20), Retries(count=0), checks=Checks(lean_checks=lean_checks))
    ) as verifier:
        (verdict,) = await verifier.verify([VerifyItem(attack.code, attack.statement)])
    assert verdict.kind is not VerdictKind.VALID, attack.lean


@pytest.mark.parametrize("lean_checks", [True, False], ids=["checks", "fallback"])
@pytest.mark.parametrize(
    "name",
    [
        pytest.param(la.name, id=la.name)  # `false_reject`: why main refused it (fixed in harden)
        for la in LOOKALIKES
    ],
)
async def test_verifier_accepts_the_lookalike(url: str, name: str, lean_checks: bool) -> None:
    lookalike = next(la for la in LOOKALIKES if la.name == name)
    async with Verifier(
        VerifierOptions(Endpoint(url), Timeouts(lean_s=20), Retries(count=0), checks=Checks(lean_checks=lean_checks))
    ) as verifier:
        (verdict,) = await verifier.verify([VerifyItem(lookalike.code, lookalike.statement)])
    assert verdict.kind is VerdictKind.VALID, verdict
