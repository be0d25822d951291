import json
from pathlib import Path
from typing import Any

import pytest
from kimina_eval.cli import main
from kimina_eval.config import RunConfig, save_config
from kimina_eval.report import render_markdown, write_report
from kimina_eval.search import SearchConfig, run_search, summarize_search
from kimina_eval.store import SampleRecord, SampleWriter
from kimina_eval.summary import summarize
from kimina_verify import Endpoint, Retries, Timeouts, VerifierOptions
from kimina_verify.attempts import FIRST_TURN


def verifier_at(url: str) -> VerifierOptions:
    """The test runs' verifier: no client retries, a short Lean timeout."""
    return VerifierOptions(Endpoint(url), Timeouts(lean_s=5), Retries(count=0))


SEARCH = SearchConfig(rounds=3, proposals_per_round=1, negation_samples=1, lemma_samples=2, sample_budget=64)


def searched(scenario: Any, lean_url: str, out: Path) -> Path:
    config = RunConfig(model="/models/Prover-S", dataset=str(scenario.dataset), split="valid", n=2)
    run_search(config, SEARCH, scenario.prover(), out, verifier=verifier_at(lean_url))
    return out


def test_report_has_the_lemma_search_column_and_traces(scenario: Any, lean_url: str, tmp_path: Path) -> None:
    out = searched(scenario, lean_url, tmp_path / "search")
    plain = tmp_path / "plain"
    save_config(plain, RunConfig(model="/models/Prover-P", n=2))
    with SampleWriter(plain / "samples.jsonl") as writer:
        writer.write(
            [
                SampleRecord("amc12a_2015_p10", i, FIRST_TURN, i == 0, "valid" if i == 0 else "lean_error", "")
                for i in (0, 1)
            ]
        )

    summary = summarize(out)
    assert summary.search is not None and summary.n == 2
    assert summary.scores.pass_at[2].value == 0.0  # round 1 alone: both attempts failed
    markdown = render_markdown([summary, summarize(plain)])
    assert "| Model | Pass@2 | Pass@2 with error fixing | With lemma search |" in markdown
    assert "| Prover-S | 0.00% [0.0, 0.0] | n/a | 100.00% [100.0, 100.0] |" in markdown
    assert "| Prover-P | 100.00% [100.0, 100.0] | n/a | n/a |" in markdown
    assert "*With lemma search*" in markdown
    assert "Budget per problem: 64 samples, 3600 s, 3 rounds of 2 attempts. Solved 1 of 1 finished problems" in markdown
    assert "| amc12a_2015_p10 | solved | 2 | 9 |" in markdown and "| 3 | 1 | 1 | 1 | `key_factor` |" in markdown
    assert (
        "- `amc12a_2015_p10` (solved in round 2, 9 samples): proposed `key_factor`, `y_negative`, `ill_typed`; "
        "rejected `ill_typed`; refuted `y_negative`; proved `key_factor`; used `key_factor`"
    ) in markdown
    # A report without a search keeps the published table's layout.
    assert "With lemma search" not in render_markdown([summarize(plain)])

    files = write_report([summary], tmp_path / "report")
    [run] = json.loads(files.summary.read_text())["runs"]
    [trace] = run["search"]["traces"]
    assert trace == {
        "problem": "amc12a_2015_p10",
        "outcome": "solved",
        "rounds": 2,
        "samples": 9,
        "elapsed_s": trace["elapsed_s"],
        "proposed": ["key_factor", "y_negative", "ill_typed"],
        "rejected": ["ill_typed"],
        "refuted": ["y_negative"],
        "proved": ["key_factor"],
        "used": ["key_factor"],
    }
    assert run["search"]["config"]["negation_samples"] == 1 and run["search"]["solved"]["value"] == 1.0


def test_an_interrupted_search_is_reported_as_incomplete(scenario: Any, lean_url: str, tmp_path: Path) -> None:
    out = searched(scenario, lean_url, tmp_path)
    log = out / "search.jsonl"
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:-2]) + "\n" + lines[-2][:50] + "\n")  # stopped while writing round 2
    summary = summarize_search(out)
    assert summary is not None and summary.corrupt_lines == 1
    [trace] = summary.traces
    assert (trace.outcome, trace.finished, trace.rounds) == ("incomplete", False, 1)
    assert trace.named("proved") == ["key_factor"]  # from the pool after round 1
    assert summary.solved.problems == 0
    markdown = render_markdown([summarize(out)])
    assert "Solved 0 of 0 finished problems (n/a). 1 not finished" in markdown
    assert "| amc12a_2015_p10 | **incomplete** | 1 |" in markdown


def test_search_command_end_to_end_with_the_tiny_model(
    tiny_model: Path, lean_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["search", "--model", str(tiny_model), "--lean-url", lean_url, "--limit", "2", "--n", "1"]
    argv += ["--rounds", "2", "--proposals", "1", "--max-tokens", "8", "--seed", "0", "--engine-option", "device=cpu"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| Model | Pass@1 | Pass@1 with error fixing | With lemma search |" in out
    # A random model proposes no lemma: each problem gets its 2 rounds of 1 attempt and 1 proposal in between.
    summary = summarize_search(tmp_path)
    assert summary is not None
    assert [(t.outcome, t.rounds, t.samples, t.lemmas) for t in summary.traces] == [("rounds", 2, 3, ())] * 2
    assert "## Lemma search: tiny-model" in (tmp_path / "report.md").read_text()
    # The same command again resumes: nothing left to do, same report.
    before = (tmp_path / "search.jsonl").read_text()
    assert main([*argv, "--out", str(tmp_path)]) == 0
    assert (tmp_path / "search.jsonl").read_text() == before


HOOK_MODULE = """
import shutil
from pathlib import Path

setups, batches = [], []


def factory(setup):
    if "steps" not in setup.options:
        raise ValueError("this factory wants --ttrl-option steps=N")
    setups.append(setup)

    def hook(batch):
        batches.append(batch)
        trained = setup.out_dir / "ttrl" / f"{batch.problem}-{batch.round}"
        shutil.copytree(batch.model, trained)  # stands in for a training run's checkpoint
        return str(trained)

    return hook
"""


def test_search_command_hands_rounds_to_a_hook_factory_and_loads_what_it_trained(
    tiny_model: Path, lean_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_ttrl_hook.py").write_text(HOOK_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import my_ttrl_hook  # type: ignore[import-not-found]

    out = tmp_path / "run"
    argv = ["search", "--model", str(tiny_model), "--lean-url", lean_url, "--limit", "2", "--n", "1", "--out", str(out)]
    argv += ["--rounds", "2", "--proposals", "1", "--max-tokens", "8", "--seed", "0", "--engine-option", "device=cpu"]
    argv += ["--ttrl", "my_ttrl_hook:factory", "--ttrl-option", "steps=3", "--ttrl-on-cpu"]
    assert main(argv) == 0
    [setup] = my_ttrl_hook.setups
    assert (setup.model, setup.engine, setup.out_dir, setup.lean_url) == (
        str(tiny_model),
        "transformers",
        out,
        lean_url,
    )
    assert setup.options == {"steps": "3"}
    # The search's verifier options, whole: the same server and the protocol's zero client retries.
    assert setup.verifier.endpoint.url == lean_url and setup.verifier.retries.count == 0
    # Each problem's round 1 samples from the run's model, and its round 2 from what its own hook call returned.
    assert [(b.round, b.model) for b in my_ttrl_hook.batches] == [(1, str(tiny_model))] * 2
    ttrl = [json.loads(line) for line in (out / "search.jsonl").read_text().splitlines() if '"ttrl"' in line]
    assert [Path(e["model"]).name for e in ttrl] == [f"{b.problem}-1" for b in my_ttrl_hook.batches]
    summary = summarize_search(out)
    assert summary is not None and [t.rounds for t in summary.traces] == [2, 2]


@pytest.mark.parametrize(
    ("extra", "code", "message"),
    [
        (["--ttrl-option", "steps=2"], 2, "--ttrl-option needs --ttrl"),
        (["--ttrl", "kimina_eval.search.ttrl:TTRLSetup", "--ttrl-option", "x"], 2, "--ttrl-option wants KEY=VALUE"),
        (["--ttrl", "no_such_module_xyz:train"], 2, "No module named 'no_such_module_xyz'"),
        (["--ttrl", "json"], 2, "package.module:function"),
        (["--concurrency", "0"], 2, "--concurrency must be >= 1"),
        (["--sample-budget", "0"], 2, "sample_budget must be >= 1"),
        (["--lean-url", "http://127.0.0.1:9"], 3, "no verification server at http://127.0.0.1:9"),
    ],
)
def test_search_command_errors_are_one_line(
    tiny_model: Path, lean_url: str, tmp_path: Path, capsys: Any, extra: list[str], code: int, message: str
) -> None:
    argv = ["search", "--model", str(tiny_model), "--out", str(tmp_path), "--lean-url", lean_url, "--limit", "1"]
    assert main([*argv, "--engine-option", "device=cpu", *extra]) == code
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_search_refuses_a_directory_holding_an_evaluation_run(tiny_model: Path, lean_url: str, tmp_path: Path) -> None:
    common = ["--model", str(tiny_model), "--lean-url", lean_url, "--limit", "1", "--n", "1", "--max-tokens", "4"]
    common += ["--engine-option", "device=cpu", "--out", str(tmp_path)]
    assert main(["run", *common]) == 0
    assert main(["search", *common]) == 2  # bad input: the folder holds another run
