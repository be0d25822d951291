import json
import logging
from pathlib import Path

import datasets
import pytest
from kimina_data.config import BuildConfig
from kimina_data.pipeline import BuildError, build_promptset
from kimina_data.references import MINIF2F, Reference, load_reference
from kimina_data.schema import canonical_table
from kimina_data.sources import SourceError, SourceSpec, load_source
from kimina_data.statement import parse_statement, statement_key
from kimina_data.steps import decontaminate, normalise
from kimina_data.testing import FakeGeminiClient, synthetic_answer
from kimina_data.variants import GeminiSettings

Contaminated = tuple[Path, dict[str, str]]


@pytest.fixture(scope="module")
def reference(minif2f_file: Path) -> Reference:
    return load_reference([str(minif2f_file)])


@pytest.fixture(scope="module")
def problems(minif2f_file: Path) -> dict[str, dict[str, object]]:
    rows = [json.loads(line) for line in minif2f_file.read_text(encoding="utf-8").splitlines()]
    return {row["name"]: row for row in rows}


def _training_row(uid: str, statement: str) -> dict[str, object]:
    return {
        "uid": uid,
        "data_source": "numina-lean",
        "source": "synthetic",
        "header": "",
        "formal_statement": statement,
        "informal_problem": "(synthetic)",
        "win_rate": 0.0,
        "n_proofs": 8,
        "n_correct_proofs": 0,
        "author": "human",
        "variant_of": None,
    }


def _key(statement: str) -> str:
    return statement_key(parse_statement(statement).body)


def test_the_minif2f_reference_holds_both_splits_and_both_statement_forms(
    reference: Reference, minif2f_file: Path, problems: dict[str, dict[str, object]]
) -> None:
    assert reference.files == {str(minif2f_file): 488}
    assert len(reference.labels) == 488
    assert {label.split(":")[0] for label in reference.labels} == {"minif2f-valid", "minif2f-test"}
    rectified = [p for p in problems.values() if p["formal_statement_rectified"]]
    assert rectified
    for problem in rectified:
        label = f"minif2f-{problem['split']}:{problem['name']}"
        assert label in reference.keys[_key(str(problem["formal_statement"]))]
        assert label in reference.keys[_key(str(problem["formal_statement_rectified"]))]


def test_disguised_copies_of_real_minif2f_statements_are_removed_and_unrelated_rows_kept(
    reference: Reference, contaminated: Contaminated, problems: dict[str, dict[str, object]]
) -> None:
    path, copies = contaminated
    loaded = normalise(load_source(SourceSpec(str(path))).table)
    near = str(problems["mathd_algebra_10"]["formal_statement"]).replace("= 10 := by", "= 11 := by")
    unrelated = [
        _training_row("synthetic-other", "theorem other (x : ℕ) (h : x = 2) : x + x = 4 := by"),
        _training_row("synthetic-near-miss", near.replace("mathd_algebra_10", "near_miss")),
    ]
    table = datasets.concatenate_datasets([normalise(canonical_table(unrelated)), loaded])

    kept, removed = decontaminate(table, reference.keys)

    assert kept["uid"] == ["synthetic-other", "synthetic-near-miss"]  # a changed number is another problem
    assert {r.uid: r.detail for r in removed} == {uid: f"same statement as {label}" for uid, label in copies.items()}
    assert {(r.step, r.reason, r.data_source) for r in removed} == {("decontaminate", "contaminated", "numina-lean")}
    assert removed[0].record == loaded[0]  # the whole row, so nothing is lost


def test_the_original_statement_of_a_rectified_problem_is_caught_too(
    reference: Reference, problems: dict[str, dict[str, object]]
) -> None:
    problem = problems["aime_1994_p3"]
    assert problem["formal_statement_rectified"] and problem["split"] == "test"
    table = normalise(canonical_table([_training_row("synthetic-old", str(problem["formal_statement"]))]))
    kept, removed = decontaminate(table, reference.keys, step="decontaminate variants")
    assert len(kept) == 0
    assert (removed[0].step, removed[0].detail) == (
        "decontaminate variants",
        "same statement as minif2f-test:aime_1994_p3",
    )


def test_the_evaluation_rows_themselves_are_not_checked(reference: Reference, minif2f_file: Path) -> None:
    evaluation = normalise(load_source(SourceSpec(str(minif2f_file))).table)
    kept, removed = decontaminate(evaluation, reference.keys)
    assert (len(kept), removed) == (488, [])
    # Only the row's own identity exempts it: the same problem id under a training source is a copy.
    first = evaluation[0]
    copy = normalise(canonical_table([_training_row(first["uid"], first["formal_statement"])]))
    assert len(decontaminate(copy, reference.keys)[0]) == 0


def test_no_reference_keeps_every_row(contaminated: Contaminated) -> None:
    table = normalise(load_source(SourceSpec(str(contaminated[0]))).table)
    kept, removed = decontaminate(table, {})
    assert (len(kept), removed) == (6, [])


def test_a_reference_that_cannot_be_found_is_a_clear_error(tmp_path: Path, no_packaged_minif2f: None) -> None:
    with pytest.raises(SourceError, match="missing.jsonl: no such decontamination reference file"):
        load_reference([str(tmp_path / "missing.jsonl")])
    with pytest.raises(SourceError, match="the miniF2F file shipped with kimina-data is missing"):
        load_reference([MINIF2F])


def _steps(report: object) -> dict[str, tuple[int, int]]:
    return {s.name: (s.rows_in, s.rows_out) for s in report.steps}  # type: ignore[attr-defined]


def test_a_build_removes_the_copies_and_reports_them(
    numina_fixture: Path, contaminated: Contaminated, minif2f_file: Path, tmp_path: Path
) -> None:
    path, copies = contaminated
    config = BuildConfig(
        sources=(SourceSpec(str(numina_fixture)), SourceSpec(str(path))),
        out=tmp_path,
        variants=0,
        val_fraction=0.0,
        decontaminate=(str(minif2f_file),),
    )
    report = build_promptset(config)
    assert _steps(report)["normalise"] == (17, 17)
    assert _steps(report)["decontaminate"] == (17, 11)
    assert report.rejected["decontaminate:contaminated"] == 6
    assert report.decontamination is not None
    assert (report.decontamination.removed, report.decontamination.own_rows) == (6, 0)
    assert report.decontamination.copied == dict.fromkeys(copies.values(), 1)

    stats = json.loads((tmp_path / "stats.json").read_text())
    assert stats["decontamination"]["references"] == {str(minif2f_file): 488}
    assert stats["decontamination"]["removed"] == 6
    rejected = [json.loads(line) for line in (tmp_path / "rejected.jsonl").read_text().splitlines()]
    contaminated_rows = {r["uid"]: r["detail"] for r in rejected if r["reason"] == "contaminated"}
    assert contaminated_rows == {uid: f"same statement as {label}" for uid, label in copies.items()}
    train = datasets.Dataset.from_parquet(str(tmp_path / "train.parquet"), keep_in_memory=True)
    assert not {statement_key(e["formal_statement"]) for e in train["extra_info"]} & set(
        load_reference([str(minif2f_file)]).keys
    )


def test_by_default_the_packaged_minif2f_file_is_the_reference(contaminated: Contaminated, tmp_path: Path) -> None:
    from kimina_data.minif2f import PACKAGED_MINIF2F

    config = BuildConfig(sources=(SourceSpec(str(contaminated[0])),), out=tmp_path, variants=0)
    with pytest.raises(BuildError, match=r"no rows left after decontaminate \(rejected: decontaminate:contaminated 6"):
        build_promptset(config)
    stats = json.loads((tmp_path / "stats.json").read_text())
    assert stats["decontamination"]["references"] == {str(PACKAGED_MINIF2F): 488}


def test_without_the_default_file_a_build_warns_that_nothing_is_checked(
    contaminated: Contaminated, tmp_path: Path, no_packaged_minif2f: None, caplog: pytest.LogCaptureFixture
) -> None:
    config = BuildConfig(sources=(SourceSpec(str(contaminated[0])),), out=tmp_path, variants=0)
    with caplog.at_level(logging.WARNING):
        report = build_promptset(config)
    assert "NOT checked against miniF2F" in caplog.text
    assert report.decontamination is not None and report.decontamination.skipped
    assert "decontaminate" not in _steps(report) and report.rows_out["train"] > 0


def test_an_explicit_reference_that_is_missing_stops_the_build_before_any_work(
    contaminated: Contaminated, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kimina_data.minif2f import PACKAGED_MINIF2F

    out = tmp_path / "out"
    config = BuildConfig(
        sources=(SourceSpec(str(contaminated[0])),), out=out, variants=0, decontaminate=("heldout.parquet",)
    )
    with pytest.raises(SourceError, match="heldout.parquet: no such decontamination reference file"):
        build_promptset(config)
    monkeypatch.setattr("kimina_data.minif2f.PACKAGED_MINIF2F", tmp_path / "nowhere" / PACKAGED_MINIF2F.name)
    with pytest.raises(SourceError, match="the miniF2F file shipped with kimina-data is missing"):
        build_promptset(BuildConfig(sources=config.sources, out=out, variants=0, decontaminate=(MINIF2F,)))
    assert not out.exists()


def test_evaluation_rows_in_the_build_are_kept_and_counted(minif2f_file: Path, tmp_path: Path) -> None:
    config = BuildConfig(sources=(SourceSpec(str(minif2f_file)),), out=tmp_path, variants=0, val_fraction=0.1)
    report = build_promptset(config)
    assert _steps(report)["decontaminate"] == (488, 488)
    assert report.decontamination is not None
    assert (report.decontamination.removed, report.decontamination.own_rows) == (0, 488)


def test_a_variant_that_copies_an_evaluation_problem_is_removed(
    numina_fixture: Path, problems: dict[str, dict[str, object]], tmp_path: Path, fast_gemini: GeminiSettings
) -> None:
    leaked = str(problems["imo_1959_p1"]["formal_statement"]).replace("imo_1959_p1", "variant_gcd")

    def answer(prompt: str) -> str:
        if "theorem syn_01" not in prompt:
            return synthetic_answer(prompt)
        variant = {"informal_problem": "(synthetic) a gcd problem", "formal_statement": leaked, "change": "new"}
        return json.dumps({"variants": [variant]})

    config = BuildConfig(
        sources=(SourceSpec(str(numina_fixture)),),
        out=tmp_path,
        gemini=fast_gemini,
        variants=1,
        val_fraction=0.0,
    )
    report = build_promptset(
        config, client=FakeGeminiClient(answer), statement_check=lambda snippets: ["sorry"] * len(snippets)
    )
    steps = _steps(report)
    assert steps["variants"] == (8, 16) and steps["decontaminate variants"] == (16, 15)
    assert report.rejected["decontaminate variants:contaminated"] == 1
    assert report.decontamination is not None and report.decontamination.copied == {"minif2f-test:imo_1959_p1": 1}
    rejected = [json.loads(line) for line in (tmp_path / "rejected.jsonl").read_text().splitlines()]
    (leak,) = [r for r in rejected if r["reason"] == "contaminated"]
    assert leak["uid"] == "synthetic-01/variant-0" and leak["record"]["variant_of"] == "synthetic-01"
