from collections import Counter
from pathlib import Path

import datasets
import pytest
from kimina_data.schema import canonical_table
from kimina_data.sources import SourceSpec, load_source
from kimina_data.statement import DEFAULT_HEADER
from kimina_data.steps import (
    Split,
    Weighting,
    deduplicate,
    filter_win_rate,
    normalise,
    split_by_problem,
    to_verl,
    weight,
    write_parquet,
)
from kimina_data.steps.export import VERL_COLUMNS


@pytest.fixture
def loaded(numina_fixture: Path) -> datasets.Dataset:
    return load_source(SourceSpec(str(numina_fixture))).table


def _row(uid: str, win_rate: float | None = None, variant_of: str | None = None, **extra: object) -> dict[str, object]:
    row: dict[str, object] = {
        "uid": uid,
        "data_source": "numina-lean",
        "source": "synthetic",
        "header": "import Mathlib\n\n",
        "formal_statement": f"theorem {uid.replace('/', '_').replace('-', '_')} : {len(uid)} = {len(uid)} := by",
        "informal_problem": "(synthetic)",
        "win_rate": win_rate,
        "n_proofs": None,
        "n_correct_proofs": None,
        "author": "",
        "variant_of": variant_of,
    }
    row.update(extra)
    return row


def test_normalise_gives_every_row_a_header_and_a_statement_ending_in_by(loaded: datasets.Dataset) -> None:
    table = {row["uid"]: row for row in normalise(loaded)}
    for row in table.values():
        assert row["header"].startswith(("import", "/-")) and row["header"].endswith("\n\n")
        assert row["formal_statement"].endswith(":= by") and "sorry" not in row["formal_statement"]
    windows = table["synthetic-17"]
    assert windows["header"] == (
        "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
    )
    assert windows["formal_statement"] == "theorem syn_17 (x : ℝ) (h : Real.sqrt x = 3) (hx : 0 ≤ x) : x = 9 := by"
    assert table["synthetic-18"]["header"] == DEFAULT_HEADER
    assert table["synthetic-19"]["formal_statement"].startswith("open Real in\ntheorem syn_19")


def test_normalise_is_idempotent_and_keeps_everything_else(loaded: datasets.Dataset) -> None:
    once = normalise(loaded)
    assert normalise(once).to_list() == once.to_list()
    assert once["uid"] == loaded["uid"] and once["win_rate"] == loaded["win_rate"]


def test_normalise_tidies_informal_text() -> None:
    table = normalise(canonical_table([_row("a", informal_problem="  Find x.\r\n\r\n\r\n\r\nThen y.   \n")]))
    assert table["informal_problem"] == ["Find x.\n\nThen y."]


def test_filter_drops_rows_above_the_threshold_and_keeps_missing_by_flag() -> None:
    table = canonical_table([_row("a", 0.0), _row("b", 0.5), _row("c", 0.51), _row("d", 1.0), _row("e", None)])
    assert filter_win_rate(table)["uid"] == ["a", "b", "e"]
    assert filter_win_rate(table, keep_missing=False)["uid"] == ["a", "b"]
    assert filter_win_rate(table, max_win_rate=0.0)["uid"] == ["a", "e"]


def test_dedup_keeps_one_row_per_statement_the_most_informative_one(loaded: datasets.Dataset) -> None:
    table = filter_win_rate(normalise(loaded))
    kept = deduplicate(table)
    assert len(table) == 10 and len(kept) == 8
    uids = kept["uid"]
    assert "synthetic-01" in uids and "synthetic-07" not in uids  # 01 has a win rate, 07 only a human author
    assert "synthetic-08" in uids and "synthetic-06" not in uids  # 08 has a win rate, 06 none
    assert uids == [u for u in table["uid"] if u in set(uids)]  # order preserved


def test_dedup_prefers_more_proof_attempts_then_a_human_then_longer_text() -> None:
    same = {"formal_statement": "theorem t : 1 = 1 := by"}
    rows = [
        _row("few", 0.0, n_proofs=8, **same),
        _row("many", 0.0, n_proofs=32, **same),
        _row("machine", None, author="autoformalizer", **same | {"formal_statement": "theorem u : 2 = 2 := by"}),
        _row("human", None, author="human", **same | {"formal_statement": "theorem v : 2 = 2 := by"}),
    ]
    assert deduplicate(canonical_table(rows))["uid"] == ["many", "human"]


def test_weighting_repeats_hard_rows_by_the_configured_tiers() -> None:
    table = canonical_table(
        [_row("zero", 0.0), _row("tenth", 0.1), _row("fifth", 0.2), _row("half", 0.5), _row("unknown")]
    )
    assert Counter(weight(table)["uid"]) == {"zero": 4, "tenth": 3, "fifth": 2, "half": 1, "unknown": 1}
    custom = Weighting(tiers=((0.0, 10),), default=0, unknown=2)
    assert Counter(weight(table, custom)["uid"]) == {"zero": 10, "unknown": 2}
    assert weight(table, lambda w: 1)["uid"] == table["uid"]


def test_weighting_rejects_unsorted_tiers_and_negative_copies() -> None:
    with pytest.raises(ValueError, match="sorted"):
        Weighting(tiers=((0.5, 2), (0.1, 3)))
    with pytest.raises(ValueError, match="negative"):
        Weighting(unknown=-1)


def test_split_keeps_variants_with_their_origin_and_is_stable() -> None:
    rows = []
    for i in range(300):
        rows.append(_row(f"p{i}", 0.1))
        rows.append(_row(f"p{i}/variant-0", variant_of=f"p{i}"))
    table = canonical_table(rows)
    train, val = split_by_problem(table, val_fraction=0.2, seed=3)
    assert len(train) + len(val) == len(table)
    assert 40 <= len(val) // 2 <= 80
    groups = {row["variant_of"] or row["uid"]: side for side, part in (("train", train), ("val", val)) for row in part}
    for part in (train, val):
        for row in part:
            assert groups[row["variant_of"] or row["uid"]] == groups[row["uid"].split("/")[0]]
    # Adding rows never moves a problem to the other side.
    more = canonical_table(rows + [_row(f"new{i}") for i in range(50)])
    assert set(val["uid"]) <= set(split_by_problem(more, val_fraction=0.2, seed=3)[1]["uid"])
    assert split_by_problem(table, val_fraction=0.0)[1].num_rows == 0
    with pytest.raises(ValueError):
        split_by_problem(table, val_fraction=1.0)


def test_export_writes_the_columns_verl_reads(loaded: datasets.Dataset, tmp_path: Path) -> None:
    from kimina_format.prompts import build_messages

    table = normalise(loaded)
    path = write_parquet(to_verl(table, split="train"), tmp_path / "train.parquet")
    exported = datasets.load_dataset("parquet", data_files=str(path), split="train", cache_dir=str(tmp_path / "c"))
    assert tuple(exported.column_names) == VERL_COLUMNS
    assert len(exported) == len(table)
    first, source = exported[0], table[0]
    assert first["data_source"] == "numina-lean"
    assert first["ability"] == "theorem_proving"
    assert first["prompt"] == build_messages(
        source["header"] + source["formal_statement"], source["informal_problem"], template="rl"
    )
    assert first["prompt"][0]["role"] == "system" and first["prompt"][1]["role"] == "user"
    assert "```lean4\nimport Mathlib\n\ntheorem syn_01" in first["prompt"][1]["content"]
    assert first["reward_model"] == {"style": "rule", "ground_truth": source["header"] + source["formal_statement"]}
    assert first["extra_info"] == {
        "index": 0,
        "uid": "synthetic-01",
        "header": source["header"],
        "formal_statement": source["formal_statement"],
        "informal_problem": source["informal_problem"],
        "source": "synthetic",
        "win_rate": 0.0,
        "variant_of": None,
        "split": "train",
    }
    assert exported["extra_info"][5]["win_rate"] is None  # a missing win rate stays null, not 0
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.cross
def test_the_split_in_extra_info_tells_kimina_rl_which_rows_are_held_out(loaded: datasets.Dataset) -> None:
    """kimina-rl keeps rollouts of rows whose `extra_info.split` is a held-out split out of its win-rate history."""
    scoring = pytest.importorskip("kimina_rl.scoring", reason="kimina-rl is not installed here")
    table = normalise(loaded)
    sides: list[tuple[Split, bool]] = [("train", True), ("val", False), ("valid", False), ("test", False)]
    for split, training in sides:
        rows = to_verl(table, split=split)
        assert {info["split"] for info in rows["extra_info"]} == {split}
        row = rows[0]
        problem = scoring.Problem.from_row(row["data_source"], row["reward_model"]["ground_truth"], row["extra_info"])
        assert problem.training is training
    with pytest.raises(ValueError, match="split must be one of"):
        to_verl(table, split="validation-ish")  # type: ignore[arg-type]


def test_a_statement_with_only_a_comment_above_it_is_exported_under_the_default_header(tmp_path: Path) -> None:
    table = normalise(
        canonical_table([_row("commented", header="", formal_statement="-- AMC 2019\ntheorem t : 1 = 1 := by")])
    )
    row = to_verl(table, split="train")[0]
    assert row["reward_model"]["ground_truth"] == DEFAULT_HEADER + "-- AMC 2019\ntheorem t : 1 = 1 := by"
    assert "```lean4\nimport Mathlib\nimport Aesop\n" in row["prompt"][1]["content"]


@pytest.mark.cross
def test_export_reads_in_verls_own_dataset_class(loaded: datasets.Dataset, tmp_path: Path) -> None:
    """verl's `RLHFDataset` reads the file and hands the reward loop what it needs: the contract, checked by verl."""
    rl_dataset = pytest.importorskip("verl.utils.dataset.rl_dataset", reason="verl is not installed here")
    from omegaconf import OmegaConf

    table = normalise(loaded)
    path = write_parquet(to_verl(table, split="train"), tmp_path / "train.parquet")
    config = OmegaConf.create({"filter_overlong_prompts": False, "cache_dir": str(tmp_path / "verl")})
    dataset = rl_dataset.RLHFDataset(str(path), tokenizer=None, config=config)
    assert len(dataset) == len(table)
    item = dataset[2]
    assert item["raw_prompt"][1]["content"].endswith(f"{table[2]['formal_statement']}\n```\n")
    assert item["data_source"] == "numina-lean"
    assert item["reward_model"]["ground_truth"] == table[2]["header"] + table[2]["formal_statement"]
    assert item["index"] == 2


def test_the_ground_truth_is_what_kimina_verify_checks_a_proof_against(minif2f_file: Path, tmp_path: Path) -> None:
    """A proof that keeps the statement passes kimina-verify's statement rules; one that changes it does not."""
    from kimina_verify import check_integrity

    table = to_verl(normalise(load_source(SourceSpec(str(minif2f_file))).table), split="test")
    for row in table.select(range(0, len(table), 8)):
        ground_truth = row["reward_model"]["ground_truth"]
        assert check_integrity(ground_truth + "\n  norm_num", ground_truth) == []
        weakened = ground_truth.replace(":= by", "∨ True := by", 1)
        assert "statement_mismatch" in {v.code for v in check_integrity(weakened + "\n  simp", ground_truth)}
