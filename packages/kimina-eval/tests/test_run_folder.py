"""One run folder for `run` and `search`: settings saved once, a resume with other settings refused (exit 2) before
the model loads, in both commands, by the same code (`kimina_eval.run_folder.RunFolder`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kimina_eval.cli import main
from kimina_eval.config import ConfigError, RunConfig, save_config
from kimina_eval.run_folder import RunFolder
from kimina_eval.search.config import SearchConfig, load_search_config
from kimina_eval.testing import ScriptedEngine


def command_line(command: str, scenario: Any, lean_url: str, out: Path) -> list[str]:
    argv = [command, "--model", "scripted", "--dataset", str(scenario.dataset), "--split", "valid", "--n", "1"]
    argv += ["--lean-url", lean_url, "--out", str(out), "--max-tokens", "8"]
    return argv + (["--rounds", "2", "--proposals", "1"] if command == "search" else [])


@pytest.mark.parametrize(
    ("command", "changed", "message"),
    [
        ("run", ["--temperature", "0.5"], "the output directory holds a run with sampling="),
        ("run", ["--model", "other"], "the output directory holds a run with model='scripted', not 'other'"),
        ("search", ["--temperature", "0.5"], "the output directory holds a run with sampling="),
        ("search", ["--n", "2"], "the output directory holds a search with n=1, not 2; use another --out"),
        (
            "search",
            ["--negation-samples", "1"],
            "the output directory holds a search with negation_samples=2, not 1; use another --out, or the same "
            "settings to resume (budgets may change)",
        ),
    ],
)
def test_a_resume_with_other_settings_is_refused_before_the_model_loads_in_both_commands(
    scenario: Any,
    lean_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    changed: list[str],
    message: str,
) -> None:
    out = tmp_path / "run"
    argv = command_line(command, scenario, lean_url, out)
    monkeypatch.setattr("kimina_eval.cli.make_engine", lambda *a, **k: scenario.prover())
    assert main(argv) == 0
    saved = {path.name: path.read_text() for path in out.glob("*.json")}
    assert set(saved) == ({"run.json", "search.json"} if command == "search" else {"run.json"}) | {"summary.json"}
    capsys.readouterr()

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the model was loaded before the run folder was checked")

    monkeypatch.setattr("kimina_eval.cli.make_engine", refuse)
    assert main([*argv, *changed]) == 2  # bad input
    err = capsys.readouterr().err
    assert message in err and err.count("error:") == 1 and "Traceback" not in err
    assert {path.name: path.read_text() for path in out.glob("*.json")} == saved  # nothing was rewritten

    # The same command again resumes; a search's larger budget does too.
    monkeypatch.setattr("kimina_eval.cli.make_engine", lambda *a, **k: scenario.prover())
    assert main([*argv, *(["--sample-budget", "200"] if command == "search" else [])]) == 0


def test_an_unreadable_settings_file_is_one_line_in_both_commands(
    scenario: Any, lean_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command, name, text, message in [
        ("run", "run.json", "[1, 2]", "run.json: not a run configuration (not a JSON object)"),
        ("search", "search.json", '{"round": 2}', "search.json: not a search configuration (search.round: unknown"),
    ]:
        out = tmp_path / command
        out.mkdir()
        (out / name).write_text(text)
        assert main(command_line(command, scenario, lean_url, out)) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err


def test_a_search_folder_checks_and_writes_search_json_beside_run_json(tmp_path: Path) -> None:
    config = RunConfig(model="m", n=2)
    search = SearchConfig(rounds=2, negation_samples=1)
    folder = RunFolder(tmp_path, config, search=search)
    built: list[int] = []

    def factory() -> ScriptedEngine:
        built.append(1)
        return ScriptedEngine(lambda m, i: "")

    engine, first_turn = folder.start(factory)
    assert built == [1] and isinstance(engine, ScriptedEngine) and first_turn == 1
    assert load_search_config(tmp_path) == search and folder.saved() == config
    assert json.loads((tmp_path / "run.json").read_text())["first_turn"] == 1

    # Budgets may change; the steps and n may not; an evaluation may grow n in its own folder.
    RunFolder(tmp_path, config, search=SearchConfig(rounds=5, negation_samples=1, sample_budget=9)).check()
    with pytest.raises(ConfigError, match="holds a search with negation_samples=1, not 2"):
        RunFolder(tmp_path, config, search=SearchConfig(rounds=2)).start(factory)
    with pytest.raises(ConfigError, match="holds a search with n=2, not 3"):
        RunFolder(tmp_path, RunConfig(model="m", n=3), search=search).start(factory)
    RunFolder(tmp_path, RunConfig(model="m", n=3)).check()
    assert built == [1]  # a refused folder builds no engine


def test_a_search_refuses_a_folder_holding_an_evaluation(tmp_path: Path) -> None:
    config = RunConfig(model="m", n=1)
    save_config(tmp_path, config)
    (tmp_path / "samples.jsonl").write_text("")
    with pytest.raises(ConfigError, match="holds an evaluation run, not a search; use another --out"):
        RunFolder(tmp_path, config, search=SearchConfig()).check()
    RunFolder(tmp_path, config).check()  # the evaluation itself resumes
