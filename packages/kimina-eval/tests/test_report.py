import json
from pathlib import Path
from typing import Any

import pytest
from kimina_eval.config import RunConfig, save_config
from kimina_eval.dataset import FAMILY_NAMES, family_of, load_problems
from kimina_eval.report import render_markdown, write_report
from kimina_eval.store import SampleRecord, SampleWriter
from kimina_eval.summary import summarize

MINIF2F_MODELS = [
    "AI-MO/Kimina-Prover-Preview-Distill-7B",
    "Goedel-LM/Goedel-Prover-SFT",
    "deepseek-ai/DeepSeek-Prover-V2-7B",
]


def write_run(folder: Path, name: str, n: int, outcomes: dict[str, list[Any]], fix_turns: int = 1) -> Path:
    """outcomes: problem -> per sample, True/False/None, or (False, fix outcome)."""
    save_config(folder, RunConfig(model=f"/models/{name}", n=n, fix_turns=fix_turns))
    with SampleWriter(folder / "samples.jsonl") as writer:
        for problem, samples in outcomes.items():
            for i, outcome in enumerate(samples):
                first, fix = outcome if isinstance(outcome, tuple) else (outcome, None)
                verdict = {True: "valid", False: "lean_error", None: "infra"}[first]
                writer.write([SampleRecord(problem, i, 0, first, verdict, "...", format_ok=bool(first))])
                if fix is not None:
                    writer.write([SampleRecord(problem, i, 1, fix, "valid" if fix else "lean_error", "...")])
    return folder


def test_report_layout_and_values_by_hand(tmp_path: Path) -> None:
    run = write_run(
        tmp_path / "a",
        "Prover-A",
        2,
        {
            "mathd_algebra_1": [True, (False, True)],  # pass@1 1/2, with fix 1
            "amc12a_2020_p1": [(False, False), (False, True)],  # 0, with fix 1/2
            "imo_1959_p1": [False, False],  # 0
            "aime_1984_p1": [None, True],  # one graded sample only
        },
    )
    summary = summarize(run)
    assert summary.name == "Prover-A" and summary.incomplete == 1 and summary.scores.infra == 1
    markdown = render_markdown([summary])
    # pass@2 over the three problems with 2 samples: 1, 0, 0.
    assert "| Model | Pass@2 | Pass@2 with error fixing |" in markdown
    assert "| Prover-A | 33.33% [" in markdown
    assert "| Prover-A + error fixing | 62.50% [" in markdown  # pass@1 with fix: (1 + 1/2 + 0 + 1) / 4
    family_rows = {line.split(" | ")[0][2:]: line for line in markdown.splitlines() if line.startswith("| ")}
    assert family_rows["mathd algebra"].startswith("| mathd algebra | 1 | 100.00% | 100.00% |")
    assert family_rows["amc"].startswith("| amc | 1 | 0.00% | 100.00% |")
    assert "| aime | 1 | n/a |" in markdown  # fewer than 2 samples: no pass@2
    assert "## Runs" in markdown and "| Prover-A | transformers | 2 | 4 | 7 | 1 | 1 | 0 |" in markdown


def test_write_report_makes_markdown_json_and_png(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", "A", 4, {"mathd_algebra_1": [True, False, False, False], "induction_1": [False] * 4})
    b = write_run(tmp_path / "b", "B", 4, {"mathd_algebra_1": [True] * 4}, fix_turns=0)
    files = write_report([summarize(a), summarize(b)], tmp_path / "out")
    payload = json.loads(files.summary.read_text())
    first = payload["runs"][0]
    assert first["scores"]["pass@1"]["value"] == pytest.approx(0.125)
    assert first["scores"]["pass@4"]["value"] == pytest.approx(0.5)
    assert set(first["families"]) == {"mathd algebra", "induction"}
    assert payload["runs"][1]["with_fix"] is False and "pass@4_with_fix" not in payload["runs"][1]["scores"]
    assert files.figure.read_bytes()[:4] == b"\x89PNG"
    assert "![pass@k](pass_at_k.png)" in files.markdown.read_text()


def test_families_cover_minif2f_test_exactly() -> None:
    problems = load_problems(split="test")
    counts = {family: sum(p.family == family for p in problems) for family in FAMILY_NAMES}
    assert counts == {
        "aime": 15,
        "amc": 45,
        "imo": 20,
        "mathd algebra": 70,
        "mathd number theory": 60,
        "algebra": 18,
        "number theory": 8,
        "induction": 8,
    }
    assert family_of("imosl_2007_algebra_p6") == "imo" and family_of("something_else") == "other"


def test_report_from_real_recorded_verdicts(data_dir: Path, tmp_path: Path) -> None:
    rows = [json.loads(line) for line in (data_dir / "recorded_verdicts.jsonl").open()]
    summaries = []
    for model in MINIF2F_MODELS:
        outcomes: dict[str, list[Any]] = {}
        for row in rows:
            if row["model"] == model:
                outcomes.setdefault(row["name"], []).append(row["verdict"])
        folder = write_run(tmp_path / model.replace("/", "_"), model.split("/")[1], 1, outcomes, fix_turns=0)
        summaries.append(summarize(folder))
    markdown = write_report(summaries, tmp_path / "report").markdown.read_text()
    assert "| Model | Pass@1 | Pass@1 with error fixing |" in markdown
    for summary in summaries:
        assert summary.scores.problems == 244
        assert sum(f.problems for f in summary.families.values()) == 244
        assert f"| {summary.name} | " in markdown
