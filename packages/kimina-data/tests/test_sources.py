import json
from collections import Counter
from pathlib import Path

import datasets
import pytest
from kimina_data.schema import COLUMNS
from kimina_data.sources import SourceError, SourceKind, SourceSpec, load_source


def test_the_minif2f_file_loads_whole_with_its_splits_and_plain_informal_text(minif2f_file: Path) -> None:
    loaded = load_source(SourceSpec(str(minif2f_file)))
    assert loaded.kind is SourceKind.MINIF2F
    assert loaded.rows_read == len(loaded.table) == 488
    assert loaded.rejections == []
    assert Counter(loaded.table["data_source"]) == {"minif2f-valid": 244, "minif2f-test": 244}
    row = loaded.table[0]
    assert row["uid"] == "amc12a_2019_p21"
    assert not row["informal_problem"].startswith("/--") and not row["informal_problem"].endswith("-/")
    assert row["formal_statement"].startswith("import Mathlib\nimport Aesop")


def test_minif2f_uses_the_rectified_statement_unless_told_not_to(minif2f_file: Path) -> None:
    def statement(rectified: bool) -> str:
        table = load_source(SourceSpec(str(minif2f_file)), rectified=rectified).table
        return str(table[table["uid"].index("amc12a_2020_p10")]["formal_statement"])

    assert "(h₀ : 1 < n)" in statement(True)
    assert "(h₀ : 0 < n)" in statement(False)


def test_every_bad_row_of_the_fixture_is_rejected_with_its_reason_and_kept_in_the_report(numina_fixture: Path) -> None:
    loaded = load_source(SourceSpec(str(numina_fixture)))
    assert loaded.kind is SourceKind.NUMINA_LEAN
    assert loaded.rows_read == 20
    assert len(loaded.table) == 11
    reasons = {r.uid or f"line {r.row}": r.reason for r in loaded.rejections}
    assert reasons == {
        "line 11": "bad_json",
        "synthetic-09": "missing_statement",
        "synthetic-10": "no_by",
        "synthetic-11": "has_proof",
        "synthetic-12": "misplaced_sorry",
        "synthetic-13": "empty_informal",
        "synthetic-14": "bad_win_rate",
        "synthetic-15": "bad_win_rate",
        "synthetic-16": "bad_win_rate",
    }
    broken = next(r for r in loaded.rejections if r.reason == "bad_json")
    assert "line 11" in broken.detail and broken.record.startswith('{"uuid": "synthetic-broken"')
    bad_rate = next(r for r in loaded.rejections if r.uid == "synthetic-16")
    assert "disagrees" in bad_rate.detail and bad_rate.record["rl_data"]["win_rate"] == 0.9


def test_win_rates_and_counts_are_carried_and_missing_rl_data_stays_missing(numina_fixture: Path) -> None:
    table = load_source(SourceSpec(str(numina_fixture))).table
    by_uid = {row["uid"]: row for row in table}
    assert by_uid["synthetic-02"]["win_rate"] == 0.125
    assert (by_uid["synthetic-02"]["n_proofs"], by_uid["synthetic-02"]["n_correct_proofs"]) == (16, 2)
    assert by_uid["synthetic-06"]["win_rate"] is None
    assert table.column_names == list(COLUMNS)


@pytest.mark.parametrize(
    ("rl_data", "accepted"),
    [
        ({"n_correct_proofs": 0, "n_proofs": 0, "win_rate": 0.0}, True),  # no attempts: treated as no RL data
        ({"n_correct_proofs": 3, "n_proofs": 16, "win_rate": None}, True),  # win rate derived from the counts
        ({"n_correct_proofs": None, "n_proofs": None, "win_rate": 0.3}, True),
        ({"n_correct_proofs": 1, "n_proofs": 16, "win_rate": "low"}, False),
        ({"n_correct_proofs": -1, "n_proofs": 16, "win_rate": None}, False),
        ({"n_correct_proofs": 1, "n_proofs": 16, "win_rate": True}, False),
        ({"n_correct_proofs": 1, "n_proofs": 16, "win_rate": float("nan")}, False),
        ("0.5", False),
    ],
)
def test_rl_data_checks(tmp_path: Path, rl_data: object, accepted: bool, numina_fixture: Path) -> None:
    row = json.loads(numina_fixture.read_text().splitlines()[0])
    row["rl_data"] = rl_data
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(row) + "\n")
    loaded = load_source(SourceSpec(str(path), kind=SourceKind.NUMINA_LEAN))
    assert len(loaded.table) == int(accepted)
    if not accepted:
        assert loaded.rejections[0].reason == "bad_win_rate"


def test_a_parquet_file_and_a_folder_load_like_the_json_lines(tmp_path: Path, numina_fixture: Path) -> None:
    rows = [json.loads(line) for line in numina_fixture.read_text().splitlines() if '"synthetic-broken"' not in line]
    rows = [r for r in rows if r["uuid"] not in {"synthetic-14", "synthetic-15", "synthetic-16"}]  # mixed types
    (tmp_path / "parts").mkdir()
    datasets.Dataset.from_list(rows).to_parquet(str(tmp_path / "parts" / "numina.parquet"))
    loaded = load_source(SourceSpec(str(tmp_path / "parts")), cache_dir=str(tmp_path / "cache"))
    assert loaded.kind is SourceKind.NUMINA_LEAN
    assert len(loaded.table) == 11
    assert {r.reason for r in loaded.rejections} == {
        "missing_statement",
        "no_by",
        "has_proof",
        "misplaced_sorry",
        "empty_informal",
    }
    assert loaded.rejections[0].row == 8  # parquet rows are numbered from 0


def test_a_kimina_promptset_file_keeps_its_statement_ids_and_duplicates(tmp_path: Path) -> None:
    rows = [
        {"source": "olympiads", "natural_language": "Show 1 + 1 = 2.", "statement_id": "s1",
         "formal_statement": "import Mathlib\n\ntheorem s1 : 1 + 1 = 2 := by"},
        {"source": "olympiads", "natural_language": "Show 1 + 1 = 2.", "statement_id": "s1",
         "formal_statement": "import Mathlib\n\ntheorem s1 : 1 + 1 = 2 := by"},
    ]  # fmt: skip
    path = tmp_path / "promptset.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    loaded = load_source(SourceSpec(str(path), name="promptset"))
    assert loaded.kind is SourceKind.PROMPTSET
    assert loaded.table["uid"] == ["s1", "s1"]
    assert set(loaded.table["data_source"]) == {"promptset"}
    assert loaded.table["source"][0] == "olympiads"


def test_a_hub_id_goes_through_datasets_with_the_split_and_cache_given(
    monkeypatch: pytest.MonkeyPatch, numina_fixture: Path
) -> None:
    seen: dict[str, object] = {}

    def fake_load_dataset(path: str, **kwargs: object) -> datasets.Dataset:
        seen.update(kwargs, path=path)
        return datasets.Dataset.from_list([json.loads(numina_fixture.read_text().splitlines()[0])])

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    loaded = load_source(SourceSpec("AI-MO/NuminaMath-LEAN", split="train"), cache_dir="/tmp/hf")
    assert seen == {"path": "AI-MO/NuminaMath-LEAN", "split": "train", "cache_dir": "/tmp/hf"}
    assert loaded.table["uid"] == ["synthetic-01"]


def test_an_unreachable_hub_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def offline(*args: object, **kwargs: object) -> None:
        raise ConnectionError("Couldn't reach 'AI-MO/NuminaMath-LEAN' on the Hub")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(SourceError, match="could not load it from the Hugging Face hub.*pass the local file"):
        load_source(SourceSpec("AI-MO/NuminaMath-LEAN"))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file, and not a Hugging Face hub id"),
        ("", "no rows"),
        ('{"a": 1, "b": 2}\n', r"unknown layout \(columns \['a', 'b'\]\)"),
    ],
)
def test_unreadable_sources_are_clear_errors(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "data.jsonl"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SourceError, match=message):
        load_source(SourceSpec(str(path)))


def test_a_file_that_is_not_json_at_all_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text("name,statement\nfoo,bar\n")
    loaded = load_source(SourceSpec(str(path), kind=SourceKind.NUMINA_LEAN))
    assert len(loaded.table) == 0
    assert [(r.row, r.reason, r.record) for r in loaded.rejections] == [
        (1, "bad_json", "name,statement"),
        (2, "bad_json", "foo,bar"),
    ]


def test_source_specs_parse_from_config_values() -> None:
    assert SourceSpec.parse("a.jsonl") == SourceSpec("a.jsonl")
    spec = SourceSpec.parse({"path": "AI-MO/minif2f_test", "kind": "minif2f", "name": "mf", "split": "train"})
    assert spec == SourceSpec("AI-MO/minif2f_test", SourceKind.MINIF2F, "mf", "train")
    with pytest.raises(ValueError, match="unknown source kind"):
        SourceSpec.parse({"path": "x", "kind": "nope"})
    with pytest.raises(ValueError, match="needs `path`"):
        SourceSpec.parse({"kind": "minif2f"})
