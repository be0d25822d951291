import argparse
import json
from pathlib import Path

import datasets
import pytest
from kimina_data.cli import main


def test_build_writes_the_promptset_and_prints_a_summary_table(
    numina_fixture: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["build", "--source", str(numina_fixture), "--out", str(tmp_path), "--no-variants"])
    assert code == 0
    err = capsys.readouterr().err
    assert "kimina-data build" in err and "filter win rate" in err and "11 → 10" in err
    assert "rejected: load:bad_win_rate 3" in err
    assert {p.name for p in tmp_path.iterdir()} >= {"train.parquet", "stats.json", "win_rates.png", "rejected.jsonl"}


def test_a_first_build_needs_no_key_and_says_variants_were_skipped(
    numina_fixture: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    assert main(["build", "--source", str(numina_fixture), "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "no Gemini variants (the default): --variants N" in err.replace("\n", " ")
    assert json.loads((tmp_path / "stats.json").read_text())["variants"] is None


def test_command_line_options_override_the_config_file(numina_fixture: Path, tmp_path: Path) -> None:
    (tmp_path / "recipe.yaml").write_text(
        f"data:\n  source: {numina_fixture}\n  out: {tmp_path / 'from-config'}\n  variants: 0\n  max_win_rate: 0.9\n"
    )
    code = main(
        ["build", "--config", str(tmp_path / "recipe.yaml"), "--out", str(tmp_path / "cli"), "--max-win-rate", "0.3"]
    )
    assert code == 0
    stats = json.loads((tmp_path / "cli" / "stats.json").read_text())
    assert next(s for s in stats["steps"] if s["name"] == "filter win rate")["rows_out"] == 8  # 11 at 0.9
    assert not (tmp_path / "from-config").exists()


def test_verify_url_sets_the_verifier_endpoint_over_the_config_file(tmp_path: Path) -> None:
    from kimina_data.cli import config_from_args

    (tmp_path / "recipe.yaml").write_text(
        "data:\n  source: x.jsonl\n  out: o\n  verifier: {endpoint: {url: http://file:8000, api_key: k}}\n"
    )
    args = _parsed(["build", "--config", str(tmp_path / "recipe.yaml"), "--verify-url", "http://cli:8000"])
    assert config_from_args(args).verifier.endpoint.url == "http://cli:8000"
    assert config_from_args(args).verifier.endpoint.api_key == "k"  # the file's other verifier keys stay
    (tmp_path / "old.yaml").write_text("data:\n  source: x.jsonl\n  out: o\n  verify_url: http://old:8000\n")
    with pytest.warns(DeprecationWarning, match="data.verify_url is now data.verifier.endpoint.url"):
        old = config_from_args(_parsed(["build", "--config", str(tmp_path / "old.yaml")]))
    assert old.verifier.endpoint.url == "http://old:8000"
    flag = config_from_args(_parsed(["build", "--source", "x.jsonl", "--out", "o", "--verify-url", "http://f:1"]))
    assert flag.verifier.endpoint.url == "http://f:1" and flag.verifier.retries.count == 2


def _parsed(argv: list[str]) -> argparse.Namespace:
    from kimina_data.cli import _parser

    namespace: argparse.Namespace = _parser().parse_args(argv)
    return namespace


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--source", "missing.jsonl", "--no-variants"], "missing.jsonl: no such file"),
        (["--source", "{fixture}", "--variants", "1"], "GEMINI_API_KEY"),
        (["--source", "{fixture}", "--no-variants", "--max-win-rate", "2"], "max_win_rate = 2.0 is out of range"),
        (["--no-variants"], "no source"),
        (["--config", "nope.yaml"], "nope.yaml: no such config file"),
    ],
)
def test_bad_input_exits_2_with_a_one_line_error(
    numina_fixture: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    args = [a.replace("{fixture}", str(numina_fixture)) for a in args]
    assert main(["build", "--out", str(tmp_path), *args]) == 2
    assert message in capsys.readouterr().err.replace("\n", " ")


def test_a_failed_build_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "easy.jsonl").write_text(
        json.dumps({"uuid": "synthetic-1", "problem": "(synthetic)", "formal_statement": "theorem e : 1 = 1 := by",
                    "rl_data": {"n_correct_proofs": 8, "n_proofs": 8, "win_rate": 1.0}}) + "\n"
    )  # fmt: skip
    assert main(["build", "--source", str(tmp_path / "easy.jsonl"), "--out", str(tmp_path / "o"), "--no-variants"]) == 1
    assert "no rows left after filter win rate" in capsys.readouterr().err


def test_minif2f_writes_the_valid_and_test_parquet(minif2f_file: Path, tmp_path: Path) -> None:
    assert main(["minif2f", "--source", str(minif2f_file), "--out", str(tmp_path)]) == 0
    valid = datasets.Dataset.from_parquet(str(tmp_path / "minif2f_valid.parquet"), keep_in_memory=True)
    test = datasets.Dataset.from_parquet(str(tmp_path / "minif2f_test.parquet"), keep_in_memory=True)
    assert (len(valid), len(test)) == (244, 244)
    assert set(test["data_source"]) == {"minif2f-test"}
    # Both are held out: kimina-rl keeps val/valid/test rows out of its win-rate history.
    assert {e["split"] for e in valid["extra_info"]} == {"valid"}
    assert {e["split"] for e in test["extra_info"]} == {"test"}
    assert (
        test[0]["extra_info"]["uid"]
        == json.loads(next(line for line in minif2f_file.read_text().splitlines() if '"split": "test"' in line))["name"]
    )
    assert not (tmp_path / "rejected.jsonl").exists()


def test_minif2f_reads_the_packaged_file_by_default(
    minif2f_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kimina_data.minif2f import PACKAGED_MINIF2F

    # The packaged file is the repository's data/minif2f.jsonl, byte for byte.
    assert PACKAGED_MINIF2F.read_bytes() == minif2f_file.read_bytes()
    monkeypatch.chdir(tmp_path)  # nothing beside the working folder: the installed package alone must do
    assert main(["minif2f", "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "minif2f_test.parquet").is_file()
    monkeypatch.setattr("kimina_data.minif2f.PACKAGED_MINIF2F", tmp_path / "nowhere.jsonl")
    assert main(["minif2f", "--out", str(tmp_path / "out")]) == 2


def test_help_explains_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["build", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "--max-win-rate" in out and "--no-variants" in out and "data:" in out
    assert "--decontaminate PATH" in out and "--no-decontaminate" in out


def test_decontamination_is_on_by_default_and_shown_in_the_summary(
    numina_fixture: Path, contaminated: tuple[Path, dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["build", "--source", str(numina_fixture), "--source", str(contaminated[0]), "--no-variants"]
    assert main([*args, "--out", str(tmp_path / "on")]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "│ decontaminate │ 17 → 11 │" in err
    assert "decontaminate:contaminated 6" in err
    assert "decontamination: 6 rows removed, copies of 6 problems of minif2f.jsonl (488)" in err

    assert main([*args, "--out", str(tmp_path / "off"), "--no-decontaminate"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "decontamination: skipped, turned off" in err and "│ decontaminate │" not in err
    stats = json.loads((tmp_path / "off" / "stats.json").read_text())
    assert stats["decontamination"]["skipped"] == "turned off"
    assert next(s for s in stats["steps"] if s["name"] == "filter win rate")["rows_in"] == 17


def test_decontaminate_takes_several_references(
    numina_fixture: Path, minif2f_file: Path, contaminated: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    # A held-out set in the NuminaMath-LEAN layout, holding row 02 of the fixture under another id.
    fixture_row = json.loads(numina_fixture.read_text().splitlines()[1])
    assert fixture_row["uuid"] == "synthetic-02"
    heldout = tmp_path / "heldout.jsonl"
    heldout.write_text(json.dumps({**fixture_row, "uuid": "heldout-1"}) + "\n")
    args = ["build", "--source", str(numina_fixture), "--source", str(contaminated[0]), "--no-variants"]
    refs = ["--decontaminate", str(heldout), "--decontaminate", str(minif2f_file)]
    assert main([*args, *refs, "--out", str(tmp_path / "o")]) == 0
    stats = json.loads((tmp_path / "o" / "stats.json").read_text())
    assert stats["decontamination"]["references"] == {str(heldout): 1, str(minif2f_file): 488}
    assert stats["decontamination"]["removed"] == 7
    assert stats["decontamination"]["copied"]["numina-lean:heldout-1"] == 1


def test_decontamination_flags_that_cannot_be_used_exit_2(
    numina_fixture: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["build", "--source", str(numina_fixture), "--out", str(tmp_path), "--no-variants"]
    assert main([*args, "--decontaminate", str(tmp_path / "eval.jsonl")]) == 2
    assert "eval.jsonl: no such decontamination reference file" in " ".join(capsys.readouterr().err.split())
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--decontaminate", "minif2f", "--no-decontaminate"])
    assert exit_info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
