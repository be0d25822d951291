"""`run.json` and `search.json` are read by the workspace's one config loader: round trip, unknown keys, types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kimina_eval.config import ConfigError, RunConfig, load_config, save_config
from kimina_eval.engines.base import SamplingParams
from kimina_eval.search.config import SearchConfig, load_search_config, save_search_config


def test_run_config_round_trips_through_run_json(tmp_path: Path) -> None:
    config = RunConfig(model="m", n=4, limit=3, sampling=SamplingParams(temperature=0.6, seed=1))
    save_config(tmp_path, config)
    assert load_config(tmp_path) == config


def test_search_config_round_trips(tmp_path: Path) -> None:
    config = SearchConfig(rounds=2, time_budget_s=10)
    save_search_config(tmp_path, config)
    assert load_search_config(tmp_path) == config


def test_an_unknown_key_is_rejected_with_a_suggestion() -> None:
    with pytest.raises(ConfigError, match=r"run.sampling.temprature: unknown key; did you mean temperature\?"):
        RunConfig.from_dict({"model": "m", "sampling": {"temprature": 0.6}})
    with pytest.raises(ConfigError, match=r"search.round: unknown key; did you mean rounds\?"):
        SearchConfig.from_dict({"round": 2})


def test_a_wrong_type_names_the_key(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text(json.dumps({"model": "m", "n": "many"}))
    with pytest.raises(
        ConfigError, match=r"run.json: not a run configuration \(run.n: Input should be a valid integer"
    ):
        load_config(tmp_path)


def test_the_run_rules_still_apply() -> None:
    with pytest.raises(ConfigError, match="fix_turns must be 0 or 1"):
        RunConfig.from_dict({"model": "m", "fix_turns": 2})


def test_run_eval_passes_the_verifier_options_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kimina_eval.runner as runner
    from kimina_verify import Endpoint, Retries, Timeouts, VerifierOptions

    seen: list[object] = []

    class Recorder:
        def __init__(self, options: object) -> None:
            seen.append(options)
            raise RuntimeError("stop here")

    monkeypatch.setattr(runner, "Verifier", Recorder)
    options = VerifierOptions(Endpoint("http://127.0.0.1:9"), Timeouts(lean_s=5), Retries(count=0))
    with pytest.raises(RuntimeError, match="stop here"):
        runner.run_eval(RunConfig(model="m", n=1, limit=1), lambda: None, tmp_path, verifier=options)  # type: ignore[arg-type, return-value]
    assert seen == [options] and seen[0] is options
