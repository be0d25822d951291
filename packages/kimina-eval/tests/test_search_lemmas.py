import json
from pathlib import Path
from typing import Any

import pytest
from kimina_eval.search.lemmas import lemmas_in_code, parse_lemmas, split_statement
from kimina_eval.search.negation import negation_formal_statement, negation_statement
from kimina_eval.search.pool import LemmaPool, LemmaStatus, PoolEntry, proof_block, used_lemmas, with_lemmas
from kimina_eval.search.prompts import FailedAttempt, proposal_messages, statement_with_lemmas
from kimina_verify import LeanCode

PROPOSAL = """<think>
The product (x+1)(y+1) = 81 looks useful. Maybe:
```lean4
lemma inside_thinking (x : ℤ) : x = x := by sorry
```
</think>
Here are the lemmas.

```lean4
import Mathlib

/-- The key factorisation. -/
lemma key_factor (x y : ℤ) (h₂ : x + y + x * y = 80) :
    (x + 1) * (y + 1) = 81 := by
  sorry

theorem bounded {n : ℕ} [NeZero n] (h : n ≤ 3) -- a comment
    : n < 4 := by sorry

lemma universe_poly.{u} (α : Sort u) : True := by sorry

example (x : ℤ) : x = x := by sorry

lemma same_as_key (x y : ℤ) (h₂ : x + y + x*y = 80) : (x + 1) * (y + 1) = 81 := sorry
```
"""


def minif2f(data_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (data_dir / "minif2f.jsonl").open()]


def test_parse_lemmas_from_a_proposal() -> None:
    lemmas = parse_lemmas(PROPOSAL)
    # Blocks inside the thinking, examples and universe-polymorphic names are not candidates.
    assert [lem.name for lem in lemmas] == ["key_factor", "bounded", "same_as_key"]
    key, bounded, same = lemmas
    assert [(b.kind, b.text) for b in key.binders] == [("explicit", "x y : ℤ"), ("explicit", "h₂ : x + y + x * y = 80")]
    assert key.conclusion == "(x + 1) * (y + 1) = 81"
    assert key.statement == "theorem key_factor (x y : ℤ) (h₂ : x + y + x * y = 80) :\n    (x + 1) * (y + 1) = 81"
    assert [(b.kind, b.text) for b in bounded.binders] == [
        ("implicit", "n : ℕ"),
        ("instance", "NeZero n"),
        ("explicit", "h : n ≤ 3"),
    ]
    # The signature keeps the model's text (its comment included) and ends at the type's last token.
    assert (
        bounded.formal_statement("H\n")
        == "H\ntheorem bounded {n : ℕ} [NeZero n] (h : n ≤ 3) -- a comment\n    : n < 4 := by"
    )
    # Same statement up to spacing and name: same key.
    assert same.key == key.key and same.name != key.name
    assert "x * y" in key.key and bounded.key != key.key


def test_unclosed_or_missing_blocks_give_no_lemma() -> None:
    assert parse_lemmas("<think>hmm</think>\n```lean4\nlemma a : 1 = 1 := by sorry\n") == []
    assert parse_lemmas("no code at all") == []
    assert lemmas_in_code("lemma no_proof (x : ℕ) : x = x") == []
    assert lemmas_in_code("lemma broken (x : ℕ : x = x := by sorry") == []


def test_every_minif2f_statement_parses_and_negates_without_losing_a_token(data_dir: Path) -> None:
    rows = minif2f(data_dir)
    assert len(rows) == 488
    for row in rows:
        [lemma] = lemmas_in_code(row["header"] + row["formal_statement"])
        assert lemma.name == row["name"]
        negation = negation_statement(lemma)
        [declaration] = LeanCode(negation).declarations
        assert declaration.name == row["name"] + "_neg"
        # miniF2F binders are all explicit, so the negation holds exactly the lemma's tokens, quantified.
        original = lemma.key.split(" ")
        colon = next(i for i, t in enumerate(original) if t == ":" and original[i - 1] == ")") if lemma.binders else 0
        binders, conclusion = original[:colon], original[colon + 1 :]
        quantifier = ["∀", *binders, ","] if binders else []
        assert list(declaration.statement) == [":", "¬", "(", *quantifier, *conclusion, ")"], row["name"]


@pytest.mark.parametrize(
    ("name", "negation"),
    [
        ("mathd_algebra_182", "theorem mathd_algebra_182_neg : ¬ (∀ (y : ℂ), 7 * (3 * y + 2) = 21 * y + 14)"),
        (
            "amc12a_2015_p10",
            "theorem amc12a_2015_p10_neg : ¬ (∀ (x y : ℤ) (h₀ : 0 < y) (h₁ : y < x) (h₂ : x + y + x * y = 80), x = 26)",
        ),
        (
            "mathd_numbertheory_64",
            "theorem mathd_numbertheory_64_neg : ¬ (IsLeast { x : ℕ | 30 * x ≡ 42 [MOD 47] } 39)",
        ),
        (
            "mathd_numbertheory_303",
            "theorem mathd_numbertheory_303_neg : ¬ (∀ (S : Finset ℕ) (h₀ : ∀ n : ℕ, n ∈ S ↔ 2 ≤ n ∧ 171 ≡ 80 [MOD n] ∧ "
            "468 ≡ 13 [MOD n]), (∑ k in S, k) = 111)",
        ),
    ],
)
def test_negation_of_real_minif2f_statements(data_dir: Path, name: str, negation: str) -> None:
    row = next(r for r in minif2f(data_dir) if r["name"] == name)
    [lemma] = lemmas_in_code(row["formal_statement"])
    assert negation_statement(lemma) == negation
    assert negation_formal_statement(lemma, row["header"]) == row["header"] + negation + " := by"


def test_negation_of_implicit_instance_and_bare_binders() -> None:
    code = "lemma card_pos {α : Type*} [Fintype α] [inst : Nonempty α] ⦃k⦄ {{m : ℕ}} n (h : k < m) : 0 < Fintype.card α"
    [lemma] = lemmas_in_code(code + " := by sorry")
    assert [b.kind for b in lemma.binders] == [
        "implicit",
        "instance",
        "instance",
        "strict_implicit",
        "strict_implicit",
        "bare",
        "explicit",
    ]
    # Implicit binders become explicit, instance binders stay instance binders, bare names stay bare.
    assert negation_statement(lemma) == (
        "theorem card_pos_neg : ¬ (∀ (α : Type*) [Fintype α] [inst : Nonempty α] (k) (m : ℕ) n (h : k < m), "
        "0 < Fintype.card α)"
    )
    [dotted] = lemmas_in_code("theorem Foo.bar : 1 + 1 = 2 := by norm_num")
    assert negation_statement(dotted) == "theorem Foo_bar_neg : ¬ (1 + 1 = 2)"


def test_pool_deduplicates_renames_and_refuses_the_theorem_itself() -> None:
    [main] = lemmas_in_code("theorem amc (x : ℤ) (h : x = 2) : x + 1 = 3 := by")
    pool = LemmaPool(reserved=frozenset({"amc"}), theorem_key=main.key)
    first = lemmas_in_code("lemma a (x : ℤ) : x = x := by sorry\nlemma b (x : ℤ) : x ≤ x := by sorry")
    again = lemmas_in_code(
        "lemma a (y : ℤ) : y = y := by sorry\n"  # another statement under a taken name: renamed
        "lemma c (x:ℤ) : x=x := by sorry\n"  # a's statement under another name: duplicate
        "lemma amc (x : ℤ) (h : x = 2) : x + 1 = 3 := by sorry\n"  # the theorem itself
        "lemma d : True := by sorry\nlemma e : 1 = 1 := by sorry"
    )
    assert [fate for _, fate in pool.add(first, 1, limit=5)] == ["new", "new"]
    fates = pool.add(again, 2, limit=2)
    assert [(lemma.name, fate) for lemma, fate in fates] == [
        ("a_2", "new"),
        ("c", "duplicate"),
        ("amc", "restates_theorem"),
        ("d", "new"),
        ("e", "over_limit"),
    ]
    assert [e.lemma.name for e in pool.entries.values()] == ["a", "b", "a_2", "d"]
    assert pool.entries[first[0].key].round == 1 and all(
        e.status is LemmaStatus.PROPOSED for e in pool.entries.values()
    )


HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
)


def proved(name: str, code: str) -> PoolEntry:
    [lemma] = [lem for lem in lemmas_in_code(code) if lem.name == name]
    return PoolEntry(lemma, 1, LemmaStatus.PROVED, proof=proof_block(code, HEADER))


def test_proved_lemmas_are_inserted_when_referred_to_and_their_use_is_traced() -> None:
    helper = proved("helper", HEADER + "theorem helper (x : ℤ) : x + 0 = x := by\n  simp\n")
    unused = proved("unused", HEADER + "theorem unused : True := by\n  trivial\n")
    attempt = HEADER + "theorem main (x : ℤ) : x + 0 + 0 = x := by\n  rw [helper, helper]\n"
    code, inserted = with_lemmas(attempt, [helper, unused])
    assert inserted == ("helper",)
    assert code.index("theorem helper") < code.index("theorem main") and "theorem unused" not in code
    assert code.startswith(HEADER)
    assert used_lemmas(code, "main", ["helper", "unused"]) == ("helper",)

    # An attempt that restates the lemma itself keeps its own copy; `helper.symm` is a use too.
    own = (
        HEADER + "theorem helper (x : ℤ) : x + 0 = x := by simp\n\ntheorem main (x : ℤ) : x = x + 0 := (helper x).symm"
    )
    assert with_lemmas(own, [helper]) == (own, ())
    dotted = "theorem main (x : ℤ) : x = x + 0 := helper.symm"
    code, inserted = with_lemmas(dotted, [helper])
    assert inserted == ("helper",) and used_lemmas(code, "main", ["helper"]) == ("helper",)
    # Reached only through another declaration: still used.
    chain = code.replace("theorem main", "theorem middle") + "\ntheorem main (x : ℤ) : x = x + 0 := middle"
    assert used_lemmas(chain, "main", ["helper"]) == ("helper",)
    assert used_lemmas(chain, "main", ["unused"]) == ()


def test_proof_block_scopes_the_proofs_own_opens() -> None:
    code = HEADER + "open Finset\n\ntheorem s (n : ℕ) : (range n).card = n := by\n  simp\n"
    block = proof_block(code, HEADER)
    assert block == "section\nopen Finset\n\ntheorem s (n : ℕ) : (range n).card = n := by\n  simp\nend"
    plain = HEADER + "theorem t : True := by\n  trivial\n"
    assert proof_block(plain, HEADER) == "theorem t : True := by\n  trivial"


def test_prompts_show_failures_and_put_proved_lemmas_before_the_theorem(data_dir: Path) -> None:
    row = next(r for r in minif2f(data_dir) if r["name"] == "amc12a_2015_p10")
    statement = row["header"] + row["formal_statement"]
    failed = [
        FailedAttempt(
            "<think>" + "x" * 5000 + " try nlinarith</think>\n```lean4\nnlinarith\n```", "nlinarith", "linarith failed"
        ),
        FailedAttempt("<think>no idea</think>", None, None),
    ]
    messages = proposal_messages(statement, row["informal_prefix"], failed, ["theorem done : True := trivial"], limit=3)
    user = messages[1]["content"]
    assert messages[0]["role"] == "system" and "x + y + x * y = 80" in user
    assert "# Failed attempt 1" in user and "try nlinarith" in user and "[...]" in user and "linarith failed" in user
    assert "It wrote no final ```lean4 block." in user and "theorem done" in user and "at most 3 new" in user
    assert len(user) < 5000 + len(statement)  # the long thinking is cut

    with_lemma = statement_with_lemmas(statement, ["theorem done : True := trivial"])
    header, theorem = split_statement(statement)
    assert header == row["header"] and theorem == row["formal_statement"]
    assert with_lemma.startswith(row["header"]) and with_lemma.endswith(row["formal_statement"])
    assert with_lemma.index("theorem done") < with_lemma.index("theorem amc12a_2015_p10")
    assert statement_with_lemmas(statement, []) == statement
