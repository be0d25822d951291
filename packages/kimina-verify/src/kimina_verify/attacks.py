"""A corpus of attacks on the reward, by class, each class with harmless look-alikes, for every package's tests.

The tests of everything that scores proofs use it: `kimina-verify lint`, the `Verifier`, kimina-rl's `compute_score`.

Every case states what must happen to it: the static rule that rejects it (`rule`, None when only a server can
notice it) and the verdict kind the `Verifier` gives it against `kimina_verify.testing.sim_server`. Classes follow
issue 16: 1 lexer disagreements with Lean, 2 same tokens with another meaning, 3 phantom targets, 4 an axiom check
not tied to the target, 5 forged REPL replies, 6 headers, 7 text that cannot be encoded; and 8 code run while Lean
elaborates (`by_elab`, `eval%`, IO in evaluated configurations or `native_decide`). Look-alikes pass: a rule
that rejected one of them would reject real proofs.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "AXIOM_CHECK",
    "AttackClass",
    "CHEAT",
    "CLASSES",
    "Case",
    "FORGERY",
    "HEADER",
    "HEADERS",
    "LEXER",
    "PROOF",
    "SCOPES",
    "SIGNATURE",
    "STATEMENT",
    "TARGETS",
    "TEXT",
    "attacks",
    "lookalikes",
]

HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
)
"""The miniF2F / Kimina header."""
SIGNATURE = "theorem target (x : ℝ) (h₀ : 0 < x) : Real.log (x ^ 2) = 2 * Real.log x := by"
STATEMENT = HEADER + SIGNATURE + "\n  sorry\n"
"""The dataset statement every case is checked against (unless it brings its own)."""
PROOF = SIGNATURE + "\n  rw [Real.log_pow]\n  norm_num\n"
"""A proof of `STATEMENT`."""
CHEAT = SIGNATURE + "\n  exact cheat.elim\n"
"""A "proof" that needs a hypothesis `cheat : False` smuggled in."""


_DOTTED = SIGNATURE.replace("theorem target", "theorem A.B.target")
_CONTEXT = "instance : Fact (1 < 2) := ⟨by norm_num⟩\n\n"
_LET_STATEMENT = HEADER + "theorem target : let y := 2; y + y = 4 := by\n  sorry\n"
_AUTO = "theorem target (h : ∀ y : ℕ, (g y : ℕ) = y) : g 0 = 0 := by"
_NEGATED = "theorem target (x : ℝ) (h₀ : x ^ 2 = 2) : ¬ (∃ q : ℚ, (q : ℝ) = x) := by"
_GROUPED = "theorem target (x y : ℝ) : ∀ n m : ℕ, (x + y) * (n + m) = (y + x) * (m + n) := by"


@dataclass(frozen=True)
class Case:
    """One piece of code to score against a statement, and what must come of it.

    Attributes:
        name: Short id.
        code: The model's final Lean block.
        statement: The dataset statement.
        rule: The static rule (violation code) that rejects it; None when it passes the static rules.
        verdict: The verdict kind the Verifier gives it against the sim server (`valid` for a look-alike).
    """

    name: str
    code: str
    statement: str = STATEMENT
    rule: str | None = None
    verdict: str = "valid"


@dataclass(frozen=True)
class AttackClass:
    """One class of attack: its cases and the harmless code that looks like them."""

    number: int
    title: str
    attacks: tuple[Case, ...]
    lookalikes: tuple[Case, ...]


def _smuggled(before: str) -> str:
    """Code hiding `variable (cheat : False)` / `include cheat` from a lexer, then the cheating proof."""
    return HEADER + before + "\n\n" + CHEAT


LEXER = AttackClass(
    1,
    "lexer disagreements with Lean",
    attacks=(
        # `/--/` opens a doc comment that its own `-/` does not close: Lean reads on to the next `-/`.
        Case(
            "doc_comment_slash",
            _smuggled('/--/ "-/\ndef helper : ℕ := 0\nvariable (cheat : False)\ninclude cheat\n-- "'),
            rule="variable",
            verdict="integrity",
        ),
        # `!"` after a name is a plain string (`String.toNat!` is one identifier), not `s!`: its `{` holds no code.
        Case(
            "bang_string",
            _smuggled('def n := String.toNat!"{"\nvariable (cheat : False)\ninclude cheat\ndef m := "}"'),
            rule="lexer_ambiguous",
            verdict="integrity",
        ),
        # `«»` names run to `»` across newlines: the `--` inside is part of the name.
        Case(
            "guillemet_newline",
            _smuggled("def «a\n--» : ℕ := 0 variable (cheat : False) include cheat"),
            rule="variable",
            verdict="integrity",
        ),
        # A `'` that opens no character literal: Lean stops there and reads on from inside what follows.
        Case(
            "char_literal",
            HEADER + 'def c := \'a--#eval IO.println "{}"\n\n' + PROOF,
            rule="lexer_ambiguous",
            verdict="integrity",
        ),
        # `<-` is a token: `<--` is `<-` then `-`, not a comment.
        Case(
            "token_glued_comment",
            HEADER + 'def f : IO Unit := do\n  let x <--#eval IO.println "{}"\n\n' + PROOF,
            rule="lexer_ambiguous",
            verdict="integrity",
        ),
        # Lean steps over the third character of a plain `/-` (`whitespace`): `/-/- ... -/` closes at its only `-/`,
        # so a lexer that reads a nested opener there hides the `#eval` after it (up to `-- -/`).
        Case(
            "third_char_closes_early",
            HEADER + '/-/- a boxed remark -/\n#eval IO.println "x"\n-- -/\n\n' + PROOF,
            rule="side_command",
            verdict="integrity",
        ),
        # ... and `/-/-/` is a whole comment: what a nested-opener lexer hides up to `-- -/ -/` is code.
        Case(
            "third_char_axiom",
            _smuggled("/-/-/\naxiom cheat : False\n-- -/ -/").replace("exact cheat.elim", "exact cheat.elim"),
            rule="axiom",
            verdict="integrity",
        ),
        # A comment opener inside a `«»` name is part of the name: the code after it is code.
        Case(
            "escaped_comment_opener",
            _smuggled("def «a /-» : ℕ := 0\nvariable (cheat : False)\ninclude cheat\ndef «-/» : ℕ := 0"),
            rule="variable",
            verdict="integrity",
        ),
        # A raw string runs to `"#`, past a `"` and a `--`: the code after it is code.
        Case(
            "raw_string_quote",
            _smuggled('def s : String := r#"a " -- "#\nvariable (cheat : False)\ninclude cheat'),
            rule="variable",
            verdict="integrity",
        ),
        # A header line ending in `«`: for Lean the escape runs to the `»` lines below, so an assembly that re-emits
        # header lines one by one (from a copy where `«»` became spaces) sends the commands inside as code.
        Case(
            "escaped_header_line",
            HEADER.replace("open BigOperators Real Nat Topology Rat", "open BigOperators Real Nat Topology Rat «")
            + "variable (cheat : False)\ninclude cheat\n-- »\n\n"
            + CHEAT,
            rule="lexer_ambiguous",
            verdict="integrity",
        ),
        # The same on a `set_option` line: the refused option would be lifted into the header sent.
        Case(
            "escaped_set_option_line",
            HEADER.replace("set_option maxHeartbeats 400000", "set_option maxHeartbeats 400000 «")
            + "set_option debug.skipKernelTC true\n-- »\n\n"
            + PROOF,
            rule="lexer_ambiguous",
            verdict="integrity",
        ),
        # `throwError` takes an interpolated string: its `{` opens code up to the next string's `}`.
        Case(
            "interpolated_after_name",
            _smuggled(
                'def e : IO Unit := throwError "{"\nvariable (cheat : False)\ninclude cheat\ndef m : String := "}"'
            ),
            rule="lexer_ambiguous",
            verdict="integrity",
        ),
    ),
    lookalikes=(
        Case(
            "escaped_name_in_parens",
            HEADER
            + "lemma «my helper» : (2 : ℝ) = 1 + 1 := by norm_num\n\n"
            + SIGNATURE
            + "\n  have := («my helper»)\n  rw [Real.log_pow]\n  norm_num\n",
        ),
        Case("braces_in_plain_string", HEADER + 'def note : String := "{x}"\n\n' + PROOF),
        Case("escaped_open_name", HEADER.replace("Topology Rat", "Topology Rat «Finset»") + PROOF),
        Case(
            "doc_comment",
            HEADER
            + "/-- A helper, proved by `norm_num`. -/\nlemma helper : (2 : ℝ) = 1 + 1 := by norm_num\n\n"
            + PROOF,
        ),
        Case("boxed_remark", HEADER + "/-/- a boxed remark -/\n" + PROOF),
        Case("glued_remark", HEADER + "lemma rt_helper : True := trivial-- a remark\n\n" + PROOF),
        Case("paren_remark", HEADER + PROOF.replace("  norm_num", "  (norm_num)-- done")),
        Case("raw_string", HEADER + 'def s : String := r#"-/ /- -- " "#\n\n' + PROOF),
        Case(
            "third_char_plain", HEADER + "/-!/ a module note -/\n/-- a doc -/\nlemma h2 : True := trivial\n\n" + PROOF
        ),
        Case("bang_call", HEADER + 'def n : ℕ := String.toNat! "42"\n\n' + PROOF),
        Case("escaped_name", HEADER + "lemma «my helper» : (2 : ℝ) = 1 + 1 := by norm_num\n\n" + PROOF),
        Case("char", HEADER + "def c : Char := 'a'\n\n" + PROOF),
        Case("arrow", HEADER + "def f : Option ℕ := do\n  let x <- pure 1\n  pure x\n\n" + PROOF),
    ),
)

SCOPES = AttackClass(
    2,
    "same tokens, different meaning",
    attacks=(
        # Inside `namespace Hack`, the statement's `Real.log` reads `Hack.Real.log`.
        Case(
            "namespace_shadow",
            HEADER
            + "namespace Hack\nnoncomputable def Real.log (x : ℝ) : ℝ := 0\n\ntheorem _root_.target (x : ℝ) (h₀ : 0 < x) : Real.log (x ^ 2) = 2 * Real.log x := by\n  simp [Real.log]\n\nend Hack\n",
            rule="root_namespace",
            verdict="integrity",
        ),
        # The same through `open Hack in`.
        Case(
            "open_in_shadow",
            HEADER
            + "namespace Hack\nnoncomputable def Real.log (x : ℝ) : ℝ := 0\nend Hack\n\nopen Hack in\n"
            + SIGNATURE
            + "\n  simp [Hack.Real.log]\n",
            rule="open",
            verdict="integrity",
        ),
        # `end B` closes only `B` of `namespace A.B`: the theorem is then `A.target`.
        Case(
            "end_component",
            HEADER + "namespace A.B\nlemma helper : True := trivial\nend B\n\n" + PROOF,
            rule="statement_missing",
            verdict="integrity",
        ),
        # `theorem A.B.target` elaborates inside `namespace A.B`: the statement's `Real.log` can read `A.Real.log`.
        Case(
            "dotted_target_outer_namespace",
            HEADER + "noncomputable def A.Real.log (x : ℝ) : ℝ := 0\n\n" + _DOTTED + "\n  simp [A.Real.log]\n",
            statement=HEADER + _DOTTED + "\n  sorry\n",
            rule="shadowing",
            verdict="integrity",
        ),
        # A statement that brings an instance does not let the code add its own instance (or variable) before it.
        Case(
            "context_statement_instance",
            HEADER + _CONTEXT + "instance (priority := high) : LT ℝ := ⟨fun _ _ => True⟩\n\n" + PROOF,
            statement=HEADER + _CONTEXT + SIGNATURE + "\n  sorry\n",
            rule="instance",
            verdict="integrity",
        ),
        # `variable?` (Mathlib) is `variable`: an instance variable is included without `include`.
        Case(
            "variable_question_section",
            HEADER
            + "section\nvariable? [cheat : Fact False]\n"
            + CHEAT.replace("cheat.elim", "cheat.out.elim")
            + "end\n",
            rule="variable",
            verdict="integrity",
        ),
        # `g` is auto-bound in the statement (`(g y : ℕ)` is an ascription, not a binder): defining it changes it.
        Case(
            "auto_bound_in_forall",
            HEADER + "def g (n : ℕ) : ℕ := n\n\n" + _AUTO + "\n  intro h\n  exact h 0\n",
            statement=HEADER + _AUTO + "\n  sorry\n",
            rule="shadowing",
            verdict="integrity",
        ),
        # A constructor named like the statement's function, made visible by `export`.
        Case(
            "export_alias",
            HEADER + "inductive Hack | log\nexport Hack (log)\n\n" + PROOF,
            rule="export",
            verdict="integrity",
        ),
        # `«Real.log»` is one name with a dot in it, the code's own: its text without the escapes is `Real.log`.
        Case(
            "escaped_dotted_name",
            HEADER
            + "noncomputable def «Real.log» (x : ℝ) : ℝ := 0\n\n"
            + SIGNATURE.replace("Real.log", "«Real.log»")
            + "\n  simp [«Real.log»]\n",
            rule="statement_mismatch",
            verdict="integrity",
        ),
        # `«¬»` is a name the code may define, `¬` is `Not`.
        Case(
            "escaped_symbol",
            HEADER + "def «¬» (p : Prop) : Prop := True\n\n" + _NEGATED.replace("¬", "«¬»") + "\n  trivial\n",
            statement=HEADER + _NEGATED + "\n  sorry\n",
            rule="statement_mismatch",
            verdict="integrity",
        ),
    ),
    lookalikes=(
        # Lean elaborates a binder group as its binders one by one: `(x y : ℝ)` is `(x : ℝ) (y : ℝ)`.
        Case(
            "binder_group_split",
            HEADER
            + _GROUPED.replace("(x y : ℝ)", "(x : ℝ) (y : ℝ)").replace("∀ n m : ℕ,", "∀ (n : ℕ) (m : ℕ),")
            + "\n  intro n m\n  ring\n",
            statement=HEADER + _GROUPED + "\n  sorry\n",
        ),
        Case(
            "closed_namespace",
            HEADER + "namespace Helpers\nlemma two : (2 : ℝ) = 1 + 1 := by norm_num\nend Helpers\n\n" + PROOF,
        ),
        Case("header_open", HEADER + "open Real\n\n" + PROOF),
        Case("dotted_namespace", HEADER + "namespace A.B\nlemma helper : True := trivial\nend A.B\n\n" + PROOF),
        Case("own_type", HEADER + "inductive Colour | red | blue\n\n" + PROOF),
        Case(
            "dotted_target_helper",
            HEADER
            + "lemma A.B.two : (2 : ℝ) = 1 + 1 := by norm_num\n\n"
            + _DOTTED
            + "\n  rw [Real.log_pow]\n  norm_num\n",
            statement=HEADER + _DOTTED + "\n  sorry\n",
        ),
        Case(
            "context_statement_repeated",
            HEADER + _CONTEXT + PROOF,
            statement=HEADER + _CONTEXT + SIGNATURE + "\n  sorry\n",
        ),
        Case("helper_in_opened_namespace", HEADER + "lemma Nat.rt_two : (2 : ℕ) = 1 + 1 := by norm_num\n\n" + PROOF),
        Case(
            "helper_in_real_namespace",
            HEADER + "namespace Real\nlemma rt_two : (2 : ℝ) = 1 + 1 := by norm_num\nend Real\n\n" + PROOF,
        ),
        Case("private_helper", HEADER + "private lemma rt_helper : (2 : ℝ) = 1 + 1 := by norm_num\n\n" + PROOF),
    ),
)

TARGETS = AttackClass(
    3,
    "phantom targets",
    attacks=(
        # A `have` named `«theorem»` is not a declaration; the real `target` states `True`.
        Case(
            "have_theorem",
            HEADER
            + "lemma helper : True := by\n  have «theorem» target (x : ℝ) (h₀ : 0 < x) : Real.log (x ^ 2) = 2 * Real.log x := by\n    sorry\n  trivial\n\ntheorem target : True := trivial\n",
            rule="statement_mismatch",
            verdict="integrity",
        ),
        # Two declarations of the name: only one can be the theorem checked.
        Case(
            "duplicate",
            HEADER + PROOF + "\ntheorem target : True := trivial\n",
            rule="statement_duplicate",
            verdict="integrity",
        ),
        # The statement as an `example`, the named theorem trivial.
        Case(
            "example",
            HEADER
            + "example (x : ℝ) (h₀ : 0 < x) : Real.log (x ^ 2) = 2 * Real.log x := by\n  sorry\n\ntheorem target : True := trivial\n",
            rule="statement_mismatch",
            verdict="integrity",
        ),
        # The statement in a `where` clause of a trivial theorem.
        Case(
            "where_clause",
            HEADER + "theorem target : True := aux\nwhere aux : True := trivial\n",
            rule="statement_mismatch",
            verdict="integrity",
        ),
        # The type compared only up to its first `:=` (inside its `let`): `let y := 2; True` for `let y := 2; y + y = 4`.
        Case(
            "let_type_truncated",
            HEADER + "theorem target : let y := 2; True := trivial\n",
            statement=_LET_STATEMENT,
            rule="statement_mismatch",
            verdict="integrity",
        ),
        Case(
            "have_type_truncated",
            HEADER + "theorem target : have y := 2; True := trivial\n",
            statement=_LET_STATEMENT.replace("let y", "have y"),
            rule="statement_mismatch",
            verdict="integrity",
        ),
    ),
    lookalikes=(
        Case(
            "let_type_proved",
            HEADER + "theorem target : let y := 2; y + y = 4 := by\n  intro y\n  norm_num [y]\n",
            statement=_LET_STATEMENT,
        ),
        Case(
            "have_inside",
            HEADER
            + SIGNATURE
            + "\n  have h : Real.log (x ^ 2) = 2 * Real.log x := by\n    rw [Real.log_pow]\n    norm_num\n  exact h\n",
        ),
        Case("extra_example", HEADER + "example : True := trivial\n\n" + PROOF),
        Case("escaped_target", HEADER + PROOF.replace("theorem target", "theorem «target»")),
        Case(
            "where_helper",
            HEADER
            + SIGNATURE
            + "\n  exact aux\nwhere aux : Real.log (x ^ 2) = 2 * Real.log x := by\n    rw [Real.log_pow]\n    norm_num\n",
        ),
    ),
)

AXIOM_CHECK = AttackClass(
    4,
    "an axiom check not tied to the target",
    attacks=(
        # `#guard_msgs` swallows the theorem's messages (and would swallow an appended `#print axioms`).
        Case(
            "guard_msgs",
            HEADER + "#guard_msgs (drop all) in\n" + SIGNATURE + "\n  exact sorry\n",
            rule="side_command",
            verdict="integrity",
        ),
        # A namespace left open: an appended `#print axioms target` would name `X.target`.
        Case(
            "open_at_end",
            HEADER + SIGNATURE + "\n  sorry\n\nnamespace X\ntheorem target : True := trivial\n",
            rule="unclosed_scope",
            verdict="integrity",
        ),
        # `stop` admits the rest of the proof.
        Case("stop", HEADER + SIGNATURE + "\n  stop\n  norm_num\n", rule="stop", verdict="integrity"),
        # A printing option that the checks in Lean read through.
        Case("pp_option", HEADER + "set_option pp.fullNames false\n\n" + PROOF, rule="set_option", verdict="integrity"),
    ),
    lookalikes=(
        Case("check_after", HEADER + PROOF + "\n#check target\n"),
        Case("namespace_closed_at_end", HEADER + PROOF + "\nnamespace X\nlemma extra : True := trivial\nend X\n"),
        Case(
            "trace",
            HEADER
            + SIGNATURE
            + "\n  trace \"'target' does not depend on any axioms\"\n  rw [Real.log_pow]\n  norm_num\n",
        ),
        Case("linter_option", HEADER + "set_option linter.unusedVariables false\n\n" + PROOF),
    ),
)

FORGERY = AttackClass(
    5,
    "forged REPL replies",
    attacks=(
        # Code that prints a reply of its own to the REPL's stdout.
        Case(
            "eval_print",
            HEADER + '#eval IO.println "{\\"env\\": 1}"\n\n' + PROOF,
            rule="side_command",
            verdict="integrity",
        ),
        Case(
            "run_cmd_print", HEADER + 'run_cmd Lean.logInfo "{}"\n\n' + PROOF, rule="run_command", verdict="integrity"
        ),
        # Past the static rules (the stand-in forges on a directive): the server notices the reply out of step.
        Case("forged_reply", HEADER + PROOF + "-- sim: forge\n", verdict="integrity"),
        Case("stray_output", HEADER + PROOF + "-- sim: garbage\n", verdict="integrity"),
    ),
    lookalikes=(
        Case("check_nat", HEADER + "#check Nat\n\n" + PROOF),
        Case("plain", HEADER + PROOF),
        Case("reduce", HEADER + "#reduce 2 + 2\n\n" + PROOF),
    ),
)

HEADERS = AttackClass(
    6,
    "headers that reach Lean unchecked",
    attacks=(
        Case(
            "eval_in_header",
            HEADER + PROOF,
            statement='import Mathlib\n#eval IO.Process.run {cmd := "id"}\n\n' + SIGNATURE + "\n  sorry\n",
            rule="header_command",
            verdict="integrity",
        ),
        Case(
            "skip_kernel",
            HEADER + PROOF,
            statement="import Mathlib\nset_option debug.skipKernelTC true\n\n" + SIGNATURE + "\n  sorry\n",
            rule="header_option",
            verdict="integrity",
        ),
        Case("import_lake", "import Lake\n" + HEADER + PROOF, rule="header_import", verdict="integrity"),
        # A header hiding `#eval` behind `/-/-/` (Lean steps over the third character: the `#eval` is code).
        Case(
            "header_third_char_eval",
            HEADER + PROOF,
            statement='import Mathlib\n/-/-/\n#eval IO.Process.run {cmd := "id"}\n-- -/ -/\n\n'
            + SIGNATURE
            + "\n  sorry\n",
            rule="header_command",
            verdict="integrity",
        ),
        # `open IO` in a header lets the body call `Process.run` unprefixed.
        Case(
            "header_open_io",
            HEADER + PROOF,
            statement="import Mathlib\nopen IO Real\n\n" + SIGNATURE + "\n  sorry\n",
            rule="header_command",
            verdict="integrity",
        ),
        Case(
            "open_in_header",
            HEADER + PROOF,
            statement="import Mathlib\nopen Real in\n" + SIGNATURE + "\n  sorry\n",
            rule="header_command",
            verdict="integrity",
        ),
    ),
    lookalikes=(
        Case("minif2f_header", HEADER + PROOF),
        Case(
            "scoped_open",
            HEADER + PROOF,
            statement="import Mathlib\nopen scoped BigOperators\nopen Real\n\n" + SIGNATURE + "\n  sorry\n",
        ),
        Case("escaped_import", "import Mathlib.«Tactic»\n" + HEADER + PROOF),
        Case(
            "rec_depth",
            HEADER + PROOF,
            statement="import Mathlib\nset_option maxRecDepth 10000\n\n" + SIGNATURE + "\n  sorry\n",
        ),
    ),
)

TEXT = AttackClass(
    7,
    "text that cannot be encoded",
    attacks=(
        Case(
            "lone_surrogate",
            HEADER + PROOF.replace("norm_num", "norm_num -- \ud800"),
            rule="text_encoding",
            verdict="integrity",
        ),
        Case("nul", HEADER + PROOF.replace("norm_num", "norm_num\x00"), rule="text_encoding", verdict="integrity"),
        Case(
            "surrogate_in_statement",
            HEADER + PROOF,
            statement=STATEMENT.replace("sorry", "sorry -- \udfff"),
            rule="text_encoding",
            verdict="integrity",
        ),
        Case(
            "escape_char",
            HEADER + PROOF.replace("norm_num", "norm_num \x1b[2J"),
            rule="text_encoding",
            verdict="integrity",
        ),
    ),
    lookalikes=(
        Case("math_unicode", HEADER + PROOF.replace("norm_num", "norm_num -- ∀ x ∈ ℝ, √x ≥ 0")),
        Case("emoji_comment", HEADER + PROOF.replace("norm_num", "norm_num -- done 🎉")),
        Case("cjk_comment", HEADER + PROOF.replace("norm_num", "norm_num -- 证明完毕")),
    ),
)

META = AttackClass(
    8,
    "code run while Lean elaborates",
    attacks=(
        # Lean core's `by_elab` runs TermElabM code: here it adds an unchecked `cheat : False` (no axiom at all).
        Case(
            "by_elab_add_decl",
            HEADER
            + "def helper : Unit := by_elab do\n  Lean.addDecl (.thmDecl { name := `cheat, levelParams := [],\n"
            + "    type := Lean.mkConst ``False, value := Lean.mkConst ``True.intro })\n"
            + "  return Lean.mkConst ``Unit.unit\n\n"
            + CHEAT,
            rule="meta_code",
            verdict="integrity",
        ),
        # Mathlib's `eval%` evaluates its argument at elaboration time: IO through `unsafeBaseIO`.
        Case(
            "eval_percent_io",
            HEADER
            + 'def leak : ℕ := eval% (unsafeBaseIO (IO.Process.run { cmd := "id" } |>.toBaseIO)).toOption.get!.length\n\n'
            + PROOF,
            rule="meta_code",
            verdict="integrity",
        ),
        # A tactic's configuration is evaluated by the interpreter: IO run purely, with the world as `()`.
        Case(
            "config_io",
            HEADER
            + SIGNATURE
            + '\n  simp (config := { maxSteps := match IO.Process.run { cmd := "id" } () with | .ok s _ => s.length'
            + " | _ => 0 }) only []\n  rw [Real.log_pow]\n  norm_num\n",
            rule="meta_code",
            verdict="integrity",
        ),
        # `native_decide` compiles and runs its decision: file IO inside the proposition.
        Case(
            "native_decide_io",
            HEADER
            + 'theorem leak : (match IO.FS.readFile "/etc/hostname" () with | .ok s _ => s.length | _ => 0) ≥ 0 := by\n'
            + "  native_decide\n\n"
            + PROOF,
            rule="meta_code",
            verdict="integrity",
        ),
        # `open IO in` (or an escaped, rooted name) so that no `IO.` prefix appears at the call.
        Case(
            "opened_io",
            HEADER
            + 'open IO in\ndef n : ℕ := match Process.run { cmd := "id" } () with | .ok s _ => s.length | _ => 0\n\n'
            + PROOF,
            rule="meta_code",
            verdict="integrity",
        ),
        Case(
            "rooted_lean_name",
            HEADER + "#check (_root_.«Lean».Elab.Term.elabTerm)\n\n" + PROOF,
            rule="meta_code",
            verdict="integrity",
        ),
        # `#reduce` of a `by_elab` term (the red team's F3/B3), and `run_tac` in a proof.
        Case(
            "reduce_by_elab",
            HEADER + "#reduce (by_elab return Lean.mkConst ``Nat.zero : ℕ)\n\n" + PROOF,
            rule="meta_code",
            verdict="integrity",
        ),
        Case(
            "run_tac",
            HEADER + SIGNATURE + '\n  run_tac Lean.logInfo "x"\n  rw [Real.log_pow]\n  norm_num\n',
            rule="run_command",
            verdict="integrity",
        ),
        # In the statement itself (prove API, a dataset row): refused before any REPL sees it.
        Case(
            "statement_by_elab",
            HEADER + PROOF.replace("(h₀ : 0 < x)", "(h₀ : 0 < x) (_ : (by_elab return Lean.mkConst ``True : Prop))"),
            statement=STATEMENT.replace(
                "(h₀ : 0 < x)", "(h₀ : 0 < x) (_ : (by_elab return Lean.mkConst ``True : Prop))"
            ),
            rule="meta_code",
            verdict="integrity",
        ),
    ),
    lookalikes=(
        Case("percent", HEADER + "lemma rt_mod : (7 : ℕ) % 3 = 1 := by norm_num\n\n" + PROOF),
        Case(
            "meta_like_names",
            HEADER + "lemma lean_two (IOx evalx : ℕ) (unsafe_bound : ℕ) : (2 : ℝ) = 1 + 1 := by norm_num\n\n" + PROOF,
        ),
        Case(
            "plain_config",
            HEADER + SIGNATURE + "\n  simp (config := { decide := true }) only []\n  rw [Real.log_pow]\n  norm_num\n",
        ),
        Case("native_decide_pure", HEADER + "lemma rt_small : 2 + 2 = 4 := by native_decide\n\n" + PROOF),
    ),
)

CLASSES = (LEXER, SCOPES, TARGETS, AXIOM_CHECK, FORGERY, HEADERS, TEXT, META)
"""Every class, in the issue's order."""


def attacks() -> list[tuple[AttackClass, Case]]:
    """Every attack with its class."""
    return [(c, case) for c in CLASSES for case in c.attacks]


def lookalikes() -> list[tuple[AttackClass, Case]]:
    """Every harmless look-alike with its class."""
    return [(c, case) for c in CLASSES for case in c.lookalikes]
