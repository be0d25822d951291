import json
from pathlib import Path
from typing import Any

import pytest
from kimina_eval.config import RunConfig, save_config
from kimina_eval.dataset import FAMILY_NAMES, family_of, load_problems
from kimina_eval.plot import pass_at_k_figure
from kimina_eval.report import render_markdown, write_report
from kimina_eval.store import SampleRecord, SampleWriter
from kimina_eval.summary import summarize
from kimina_verify.attempts import FIRST_TURN, FIX_TURN

MINIF2F_MODELS = [
    "AI-MO/Kimina-Prover-Preview-Distill-7B",
    "Goedel-LM/Goedel-Prover-SFT",
    "deepseek-ai/DeepSeek-Prover-V2-7B",
]


def write_run(
    folder: Path,
    name: str,
    n: int,
    outcomes: dict[str, list[Any]],
    fix_turns: int = 1,
    *,
    lean_env: str | None = None,
    rectified: bool = False,
) -> Path:
    """outcomes: problem -> per sample, True/False/None, or (False, fix outcome)."""
    save_config(folder, RunConfig(model=f"/models/{name}", n=n, fix_turns=fix_turns, rectified=rectified))
    with SampleWriter(folder / "samples.jsonl", lean_env=lean_env) as writer:
        for problem, samples in outcomes.items():
            for i, outcome in enumerate(samples):
                first, fix = outcome if isinstance(outcome, tuple) else (outcome, None)
                verdict = {True: "valid", False: "lean_error", None: "infra"}[first]
                writer.write([SampleRecord(problem, i, FIRST_TURN, first, verdict, "...", format_ok=bool(first))])
                if fix is not None:
                    writer.write([SampleRecord(problem, i, FIX_TURN, fix, "valid" if fix else "lean_error", "...")])
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


def as_pre_06_run(folder: Path) -> Path:
    """Rewrite a run folder as kimina-eval before 0.6 wrote it: turns 0 and 1, no ``first_turn`` in run.json."""
    config = json.loads((folder / "run.json").read_text())
    assert config.pop("first_turn") == FIRST_TURN
    (folder / "run.json").write_text(json.dumps(config))
    rows = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
    assert {r["turn"] for r in rows} == {FIRST_TURN, FIX_TURN}
    (folder / "samples.jsonl").write_text("".join(json.dumps({**r, "turn": r["turn"] - 1}) + "\n" for r in rows))
    return folder


def test_a_run_written_before_0_6_reports_as_it_did(tmp_path: Path) -> None:
    outcomes = {"mathd_algebra_1": [True, (False, True)], "amc12a_2020_p1": [(False, False), (False, True)]}
    new = summarize(write_run(tmp_path / "new", "P", 2, outcomes))
    old = summarize(as_pre_06_run(write_run(tmp_path / "old", "P", 2, outcomes)))
    assert old.corrupt_lines == [] and old.with_fix
    assert old.scores.as_dict() == new.scores.as_dict()
    assert old.scores.pass_at[1].value == 0.25 and old.scores.pass_at_with_fix[1].value == 0.75
    assert old.outcomes == new.outcomes and old.format_ok == new.format_ok


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


REAL_LEAN = "leanprover/lean4:v4.15.0 mathlib@a3e910d1569d6b943debabe63afe6e3a3d4061ff"


def family_rows(markdown: str) -> dict[str, str]:
    section = markdown.split("## By family", 1)[1].split("\n## ", 1)[0]
    return {line.split(" | ")[0][2:]: line for line in section.splitlines() if line.startswith("| ")}


@pytest.mark.parametrize("larger_first", [True, False])
def test_compare_scores_every_run_at_the_same_k_and_counts_its_own_problems(tmp_path: Path, larger_first: bool) -> None:
    """A run with n=4 over 3 problems against one with n=2 over 1: pass@2 for both, each with its own problems."""
    big = write_run(
        tmp_path / "big",
        "Big",
        4,
        {"mathd_algebra_1": [True, False, False, False], "mathd_algebra_2": [False] * 4, "amc12_1": [True] * 4},
        fix_turns=0,
    )
    small = write_run(tmp_path / "small", "Small", 2, {"mathd_algebra_1": [True, True]}, fix_turns=0)
    runs = [summarize(big), summarize(small)][:: 1 if larger_first else -1]
    markdown = render_markdown(runs)
    rows = family_rows(markdown)
    first, second = (runs[0].name, runs[1].name)
    assert f"| Family | {first} problems | {first} pass@2 | {second} problems | {second} pass@2 |" in markdown
    # pass@2 of Big's algebra problems: (1/2 + 0) / 2; Small's: 1. No "n/a" for a family a run has.
    algebra = {"Big": "| 2 | 25.00% |", "Small": "| 1 | 100.00% |"}
    assert rows["mathd algebra"] == f"| mathd algebra {algebra[first]} {algebra[second][2:]}"
    assert rows["amc"].startswith(
        "| amc | 1 | 100.00% | 0 | n/a |" if larger_first else "| amc | 0 | n/a | 1 | 100.00% |"
    )
    headline = {"Big": "| Big | 41.67% [", "Small": "| Small | 100.00% ["}  # (1/2 + 0 + 1) / 3 at k=2
    assert headline[first] in markdown and headline[second] in markdown
    assert "covers 3 problems" in markdown if larger_first else "covers 1 problems" in markdown
    assert "(1 in common): their pass@k are averages over different problem sets" in markdown


def test_compare_warns_when_the_statements_differ(tmp_path: Path) -> None:
    outcomes = {"amc12a_2020_p10": [True], "aime_1994_p3": [False], "mathd_algebra_478": [True]}
    original = summarize(write_run(tmp_path / "a", "Original", 1, outcomes, fix_turns=0))
    rectified = summarize(write_run(tmp_path / "b", "Rectified", 1, outcomes, fix_turns=0, rectified=True))
    same = summarize(write_run(tmp_path / "c", "Same", 1, outcomes, fix_turns=0))
    markdown = render_markdown([original, rectified, same])
    assert "were given different statements for 2 of the 3 problems they share" in markdown
    assert "`Original` and `Same`" not in markdown and "different problem sets" not in markdown
    assert "| Family | Problems |" in markdown  # the same problems: one Problems column


def test_the_stand_in_is_named_in_the_report_and_summary(tmp_path: Path) -> None:
    sim = write_run(
        tmp_path / "sim", "Sim", 1, {"mathd_algebra_1": [True]}, fix_turns=0, lean_env="lean-repl-sim/0.4.0"
    )
    real = write_run(tmp_path / "real", "Real", 1, {"mathd_algebra_1": [False]}, fix_turns=0, lean_env=REAL_LEAN)
    files = write_report([summarize(sim), summarize(real)], tmp_path / "out")
    markdown = files.markdown.read_text()
    assert markdown.split("\n")[2].startswith("> **Warning:** NOT REAL PROOFS: `Sim` was verified by `lean-repl-sim`")
    assert "- `Real` verified with Lean leanprover/lean4:v4.15.0, Mathlib a3e910d1569d" in markdown
    payload = json.loads(files.summary.read_text())
    assert payload["stand_in"] is True and payload["warnings"][0].startswith("NOT REAL PROOFS")
    sim_run, real_run = payload["runs"]
    assert sim_run["verifier"]["stand_in"] is True and real_run["verifier"]["stand_in"] is False
    assert real_run["verifier"]["environments"] == [
        {
            "lean_env": REAL_LEAN,
            "attempts": 1,
            "description": f"Lean leanprover/lean4:v4.15.0, Mathlib {REAL_LEAN[-40:]}",
        }
    ]


def test_real_lean_alone_gets_no_warning(tmp_path: Path) -> None:
    real = write_run(tmp_path / "real", "Real", 1, {"mathd_algebra_1": [True]}, fix_turns=0, lean_env=REAL_LEAN)
    markdown = render_markdown([summarize(real)])
    assert "Warning" not in markdown and "verified with Lean leanprover/lean4:v4.15.0" in markdown
    old = write_run(tmp_path / "old", "Old", 1, {"mathd_algebra_1": [True]}, fix_turns=0)  # before lean_env
    assert "`Old` verified with a Lean environment not recorded." in render_markdown([summarize(old)])


def test_pass_at_k_plot_of_all_zero_runs_starts_at_zero(tmp_path: Path) -> None:
    zero = write_run(tmp_path / "zero", "Zero", 4, {"mathd_algebra_1": [False] * 4, "amc12_1": [False] * 4})
    bottom, top = pass_at_k_figure([summarize(zero)]).axes[0].get_ylim()
    assert bottom == 0.0 and top > 0.0
    some = write_run(tmp_path / "some", "Some", 2, {"mathd_algebra_1": [True, False]}, fix_turns=0)
    bottom, top = pass_at_k_figure([summarize(some)]).axes[0].get_ylim()
    assert bottom == 0.0 and 50.0 < top <= 100.0
