"""The smoke's reference replay and its train rows: real completions, an injected Lean error Lean rejects, exact shares."""

from pathlib import Path

import pytest
from kimina_train.references import (
    INJECTED_ERROR,
    REFERENCE_FILE,
    ReferenceDataError,
    inject_lean_error,
    load_references,
    rows_with_references,
    write_reference_rows,
)
from kimina_train.verl_cpu.replay import (
    ASSISTANT_TURN,
    FIX,
    INJECTED,
    REFERENCE,
    SAMPLED,
    ReferenceReplay,
    ReplaySettings,
)


@pytest.fixture(scope="module")
def minif2f_test(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from kimina_data.minif2f import build_minif2f, default_minif2f_source

    out = tmp_path_factory.mktemp("minif2f")
    build_minif2f(default_minif2f_source(), out)
    return out / "minif2f_test.parquet"


def _prompt(problem: str, *, follow_up: str | None = None) -> str:
    first = f"<|im_start|>user\ntheorem {problem} (x : ℕ) : x = x := by\n<|im_end|>\n{ASSISTANT_TURN}\n"
    if follow_up is None:
        return first
    return first + f"a proof<|im_end|>\n<|im_start|>user\n{follow_up}<|im_end|>\n{ASSISTANT_TURN}\n"


def test_the_shares_are_exact_and_every_replay_is_labelled() -> None:
    replay = ReferenceReplay(
        ReplaySettings(share=0.5, injected_error_share=0.5), {"p1": "proof\n```lean4\n:= by\n  rfl\n```"}
    )
    kinds = [replay.choose(_prompt("p1")).kind for _ in range(8)]
    assert kinds.count(SAMPLED) == 4 and kinds.count(REFERENCE) == 2 and kinds.count(INJECTED) == 2
    assert replay.counts == {SAMPLED: 4, REFERENCE: 2, INJECTED: 2}
    # Spread evenly over the stream, not the first half replayed and the second sampled.
    assert kinds[:4].count(SAMPLED) == 2


def test_each_problem_gets_the_shares_however_its_requests_interleave() -> None:
    # verl sends a batch's requests concurrently: two groups of 4 arriving alternately must still each get 2 samples,
    # a reference and an injected error, or a group would have no reward spread to learn from.
    proof = "proof\n```lean4\n:= by\n  rfl\n```"
    replay = ReferenceReplay(ReplaySettings(share=0.5, injected_error_share=0.5), {"p1": proof, "p2": proof})
    kinds: dict[str, list[str]] = {"p1": [], "p2": []}
    for _ in range(4):
        for problem in ("p1", "p2"):
            kinds[problem].append(replay.choose(_prompt(problem)).kind)
    for problem, got in kinds.items():
        assert sorted(got) == sorted([SAMPLED, SAMPLED, REFERENCE, INJECTED]), problem


def test_a_prompt_without_a_known_problem_and_share_zero_are_sampled() -> None:
    references = {"p1": "```lean4\n:= by\n  rfl\n```"}
    assert ReferenceReplay(ReplaySettings(share=1.0), references).choose(_prompt("other")).kind == SAMPLED
    never = ReferenceReplay(ReplaySettings(share=0.0), references)
    assert {never.choose(_prompt("p1")).kind for _ in range(5)} == {SAMPLED}
    # A longer name that merely starts like a known one is not that problem.
    assert ReferenceReplay(ReplaySettings(share=1.0), references).choose(_prompt("p10")).kind == SAMPLED


def test_the_fix_turn_after_an_injected_error_gets_the_real_proof_and_no_other_does() -> None:
    real = "```lean4\ntheorem p1 : True := by\n  trivial\n```"
    replay = ReferenceReplay(ReplaySettings(share=1.0, injected_error_share=1.0), {"p1": real})
    first = replay.choose(_prompt("p1"))
    assert first.kind == INJECTED and first.text is not None and INJECTED_ERROR in first.text
    fix = replay.choose(_prompt("p1", follow_up=f"Lean reported: error: {INJECTED_ERROR}"))
    assert (fix.kind, fix.text) == (FIX, real)
    # A fix turn after the model's own failed proof is the model's to write.
    assert replay.choose(_prompt("p1", follow_up="Lean reported: unsolved goals")).kind == SAMPLED


@pytest.mark.parametrize("settings", [{"share": 1.5}, {"share": -0.1}, {"injected_error_share": "half"}])
def test_a_share_outside_zero_one_is_refused(settings: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="must be a number in"):
        ReplaySettings.from_custom({"reference_replay": settings})


def test_unknown_replay_keys_are_refused_and_no_section_means_no_replay() -> None:
    with pytest.raises(ValueError, match="unknown key"):
        ReplaySettings.from_custom({"reference_replay": {"shares": 0.5}})
    assert ReplaySettings.from_custom(None) is None and ReplaySettings.from_custom({"other": 1}) is None


def test_the_injected_error_is_a_failing_first_tactic_and_nothing_else_changes() -> None:
    completion = "<think>\nuse rfl\n</think>\n```lean4\ntheorem t : 1 = 1 := by\n    rfl\n```"
    injected = inject_lean_error(completion)
    assert injected == completion.replace(
        ":= by\n", f':= by\n    fail "{INJECTED_ERROR}" -- sim: error {INJECTED_ERROR}\n'
    )
    assert inject_lean_error("no lean block here") is None
    assert inject_lean_error("```lean4\ntheorem t : 1 = 1 := rfl\n```") is None  # no tactic proof to break


async def test_lean_rejects_the_injected_error_and_accepts_the_real_proof(
    data_dir: Path, lean_url: str, minif2f_test: Path
) -> None:
    """The attack-and-look-alike pair on real data: each real proof verifies, its injected twin fails in Lean."""
    import pyarrow.parquet as pq
    from kimina_format import check_format, parse_completion
    from kimina_verify import Verifier, VerifyItem
    from kimina_verify.verdict import VerdictKind

    assert REFERENCE_FILE.read_bytes() == (data_dir / "kimina_completions.jsonl").read_bytes()
    references = load_references()
    chosen = rows_with_references(pq.read_table(minif2f_test).to_pylist(), references, 4)
    items = []
    for pair in chosen:
        info = pair.row["extra_info"]
        statement = info["header"] + info["formal_statement"]
        injected = inject_lean_error(pair.completion)
        assert injected is not None and check_format(injected, formal_statement=statement).ok
        for text in (pair.completion, injected):
            code = parse_completion(text).code
            assert code is not None
            items.append(VerifyItem(code, formal_statement=statement))
    async with Verifier(lean_url, cache=None) as verifier:
        verdicts = await verifier.verify(items)
    assert [v.kind for v in verdicts] == [VerdictKind.VALID, VerdictKind.LEAN_ERROR] * len(chosen)
    assert all(INJECTED_ERROR in str(v.messages) for v in verdicts[1::2])


def test_the_train_rows_all_have_a_usable_reference_shortest_first(minif2f_test: Path, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    out = write_reference_rows(minif2f_test, tmp_path / "train.parquet", 8)
    rows = pq.read_table(out).to_pylist()
    references = load_references()
    assert len(rows) == 8 and all(r["extra_info"]["uid"] in references for r in rows)
    lengths = [len(references[r["extra_info"]["uid"]]) for r in rows]
    assert lengths == sorted(lengths)
    # The rows are kimina-data's, unchanged: same columns and values as in the source.
    source = {r["extra_info"]["uid"]: r for r in pq.read_table(minif2f_test).to_pylist()}
    assert all(r == source[r["extra_info"]["uid"]] for r in rows)


def test_asking_for_more_rows_than_have_references_is_one_clear_error(minif2f_test: Path, tmp_path: Path) -> None:
    with pytest.raises(ReferenceDataError, match=r"only \d+ rows .* have a usable reference completion"):
        write_reference_rows(minif2f_test, tmp_path / "train.parquet", 10_000)
    assert not (tmp_path / "train.parquet").exists()
