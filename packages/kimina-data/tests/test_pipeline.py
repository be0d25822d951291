import json
from pathlib import Path

import datasets
import pytest
from kimina_data.config import BuildConfig
from kimina_data.pipeline import BuildError, build_promptset
from kimina_data.report import Histogram, win_rates_figure
from kimina_data.sources import SourceSpec
from kimina_data.steps.export import VERL_COLUMNS
from kimina_data.testing import FakeGeminiClient
from kimina_data.variants import GeminiSettings, MissingApiKeyError
from kimina_verify import Endpoint, VerifierOptions


def read(path: Path) -> datasets.Dataset:
    return datasets.Dataset.from_parquet(str(path), keep_in_memory=True)


def steps(report: object) -> dict[str, tuple[int, int]]:
    return {s.name: (s.rows_in, s.rows_out) for s in report.steps}  # type: ignore[attr-defined]


@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEAN_SERVER_API_URL", raising=False)


def test_the_whole_pipeline_on_the_synthetic_numina_fixture(
    numina_fixture: Path, tmp_path: Path, fast_gemini: GeminiSettings
) -> None:
    testing = pytest.importorskip("kimina_verify.testing", reason="kimina-verify's test server is not available")
    with testing.sim_server() as url:
        config = BuildConfig(
            sources=(SourceSpec(str(numina_fixture)),),
            out=tmp_path / "out",
            gemini=fast_gemini,
            variants=1,
            verifier=VerifierOptions(Endpoint(url)),
            val_fraction=0.0,
        )
        client = FakeGeminiClient()
        report = build_promptset(config, client=client)
    assert steps(report) == {
        "load": (20, 11),
        "normalise": (11, 11),
        "decontaminate": (11, 11),  # against the real miniF2F: no synthetic row copies it
        "filter win rate": (11, 10),
        "deduplicate": (10, 8),
        "variants": (8, 16),
        "decontaminate variants": (16, 16),
        "split (train)": (16, 16),
        # Copies by win rate: 0 -> 4 (rows 01, 08), 0.0625 and 0.125 -> 3 (17, 02), 0.25 -> 2 (03), 0.3125 and
        # 0.5 -> 1 (19, 05), unknown -> 1 (18 and the 8 variants).
        "weight": (16, 27),
        "write train": (27, 27),
    }
    assert len(client.calls) == 8
    assert report.variants is not None and report.variants.kept == 8
    assert report.statement_check is not None and (report.statement_check.checked, report.statement_check.kept) == (
        8,
        8,
    )
    assert report.rejected == {"load:bad_json": 1, "load:bad_win_rate": 3} | {
        f"load:{reason}": 1
        for reason in ("missing_statement", "no_by", "has_proof", "misplaced_sorry", "empty_informal")
    }
    assert report.win_rates is not None and (sum(report.win_rates.counts), report.win_rates.missing) == (8, 3)

    out = tmp_path / "out"
    train = read(out / "train.parquet")
    assert tuple(train.column_names) == VERL_COLUMNS and len(train) == 27
    assert not (out / "val.parquet").exists()
    variants = [e for e in train["extra_info"] if e["variant_of"]]
    assert len(variants) == 8 and all(e["uid"].startswith(e["variant_of"] + "/variant-") for e in variants)
    stats = json.loads((out / "stats.json").read_text())
    assert stats["steps"][0] == {"name": "load", "rows_in": 20, "rows_out": 11, "by_source": {"numina-lean": [20, 11]},
                                 "seconds": stats["steps"][0]["seconds"]}  # fmt: skip
    assert stats["variants"]["calls"] == 8 and stats["outputs"]["train"] == str(out / "train.parquet")
    assert (out / "win_rates.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rejected = [json.loads(line) for line in (out / "rejected.jsonl").read_text().splitlines()]
    assert len(rejected) == 9 and {r["step"] for r in rejected} == {"load"}

    # A second build asks Gemini nothing: every answer comes from the cache.
    again = FakeGeminiClient()
    config_no_check = BuildConfig(
        sources=config.sources, out=config.out, gemini=fast_gemini, val_fraction=0.0, variants=1
    )
    second = build_promptset(config_no_check, client=again, statement_check=lambda snippets: ["sorry"] * len(snippets))
    assert again.calls == [] and second.variants is not None and second.variants.cache_hits == 8


def test_the_whole_pipeline_on_the_real_minif2f_file(minif2f_file: Path, tmp_path: Path) -> None:
    config = BuildConfig(sources=(SourceSpec(str(minif2f_file)),), out=tmp_path, variants=0, val_fraction=0.1)
    report = build_promptset(config)
    counts = steps(report)
    assert counts["load"] == (488, 488) and counts["filter win rate"] == (488, 488)  # no win rates: all kept
    kept = counts["deduplicate"][1]
    assert 480 <= kept <= 488
    train, val = read(tmp_path / "train.parquet"), read(tmp_path / "val.parquet")
    assert len(train) + len(val) == kept  # no win rate, so one copy each
    assert 20 <= len(val) <= 80
    assert set(train["data_source"]) == {"minif2f-valid", "minif2f-test"}
    assert not {e["uid"] for e in train["extra_info"]} & {e["uid"] for e in val["extra_info"]}
    assert {e["split"] for e in train["extra_info"]} == {"train"} and {e["split"] for e in val["extra_info"]} == {"val"}
    for row in train.select(range(20)):
        statement = row["reward_model"]["ground_truth"]
        assert statement.endswith(":= by") and statement in row["prompt"][1]["content"]
        assert statement.startswith(row["extra_info"]["header"]) and statement.endswith(
            row["extra_info"]["formal_statement"]
        )
        assert row["extra_info"]["header"].startswith("import Mathlib\nimport Aesop")


def test_a_build_that_filters_everything_out_says_so_and_still_writes_its_report(tmp_path: Path) -> None:
    rows = [
        {"uuid": f"synthetic-{i}", "problem": "(synthetic) easy", "formal_statement": f"theorem e{i} : {i} = {i} := by",
         "rl_data": {"n_correct_proofs": 16, "n_proofs": 16, "win_rate": 1.0}}
        for i in range(3)
    ]  # fmt: skip
    (tmp_path / "easy.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    config = BuildConfig(sources=(SourceSpec(str(tmp_path / "easy.jsonl")),), out=tmp_path / "out", variants=0)
    with pytest.raises(BuildError, match="no rows left after filter win rate"):
        build_promptset(config)
    stats = json.loads((tmp_path / "out" / "stats.json").read_text())
    assert [s["name"] for s in stats["steps"]] == ["load", "normalise", "decontaminate", "filter win rate"]
    assert stats["error"].startswith("BuildError: no rows left after filter win rate")
    assert not (tmp_path / "out" / "train.parquet").exists()


def test_every_row_rejected_is_a_build_error_naming_the_reasons(tmp_path: Path) -> None:
    (tmp_path / "bad.jsonl").write_text(
        '{"uuid": "x", "problem": "p", "formal_statement": "theorem t : True := trivial"}\n'
    )
    config = BuildConfig(sources=(SourceSpec(str(tmp_path / "bad.jsonl")),), out=tmp_path / "out", variants=0)
    with pytest.raises(BuildError, match=r"no rows left after load \(rejected: load:no_by 1"):
        build_promptset(config)
    assert json.loads((tmp_path / "out" / "rejected.jsonl").read_text())["uid"] == "x"


def test_variants_without_an_api_key_fail_before_any_work(numina_fixture: Path, tmp_path: Path) -> None:
    config = BuildConfig(sources=(SourceSpec(str(numina_fixture)),), out=tmp_path / "out", variants=1)
    with pytest.raises(MissingApiKeyError):
        build_promptset(config)
    assert not (tmp_path / "out").exists()


def test_without_a_verification_server_the_statement_check_is_skipped_and_reported(
    numina_fixture: Path, tmp_path: Path, fast_gemini: GeminiSettings, no_server: None, caplog: pytest.LogCaptureFixture
) -> None:
    config = BuildConfig(
        sources=(SourceSpec(str(numina_fixture)),), out=tmp_path, gemini=fast_gemini, max_calls=2, variants=1
    )
    report = build_promptset(config, client=FakeGeminiClient())
    assert report.statement_check is not None and report.statement_check.skipped
    assert "NOT checked" in caplog.text
    assert report.variants is not None and (report.variants.calls, report.variants.skipped_by_cap) == (2, 6)


def test_progress_is_reported_for_every_step(numina_fixture: Path, tmp_path: Path) -> None:
    seen: list[tuple[str, int, int]] = []
    config = BuildConfig(sources=(SourceSpec(str(numina_fixture)),), out=tmp_path, variants=0)
    build_promptset(config, progress=lambda step, done, total: seen.append((step, done, total)))
    finished = [step for step, done, total in seen if done == total]
    assert finished == [
        "load",
        "normalise",
        "decontaminate",
        "filter win rate",
        "deduplicate",
        "split (train)",
        "weight",
        "write train",
    ]


@pytest.mark.parametrize("counts", [[0] * 20, [0] * 19 + [3]])
def test_win_rate_plot_never_draws_a_negative_count_axis(counts: list[int]) -> None:
    histogram = Histogram([i / 20 for i in range(21)], counts, missing=5)
    bottom, top = win_rates_figure(histogram, threshold=0.5).axes[0].get_ylim()
    assert bottom == 0 and top >= max(1, max(counts))
