"""The API's verifier settings: one `kimina_verify.VerifierOptions`, read from env/JSON/flags, passed whole."""

from __future__ import annotations

import json

import pytest
from kimina_api.main import parse_args, settings_from
from kimina_api.settings import API_VERIFIER_DEFAULTS, Settings
from kimina_verify import Endpoint, Retries, Verifier, VerifierOptions
from kimina_verify.attempts import RetryPolicy
from kimina_verify.config import dump_config
from pydantic import ValidationError


def test_nested_environment_variables_fill_the_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIMINA_API_VERIFIER__ENDPOINT__URL", "http://verifier:8000")
    monkeypatch.setenv("KIMINA_API_VERIFIER__TIMEOUTS__LEAN_S", "30")
    monkeypatch.setenv("KIMINA_API_VERIFIER__CACHE", "/data/verdicts.sqlite")
    options = Settings().verifier
    assert options.endpoint.url == "http://verifier:8000" and options.timeouts.lean_s == 30.0
    assert options.cache == "/data/verdicts.sqlite"
    assert options.retries == API_VERIFIER_DEFAULTS.retries  # keys not given keep the API's defaults


def test_json_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    options = VerifierOptions(Endpoint("http://v:1"), retries=Retries(count=0), cache="/c")
    monkeypatch.setenv("KIMINA_API_VERIFIER", json.dumps(dump_config(options)))
    assert Settings().verifier == options


def test_client_retries_are_refused_and_verifier_retries_are_rounds() -> None:
    # The attempt protocol's one retry layer is the prover's `retry`; the client never retries.
    with pytest.raises(ValidationError, match=r"verifier.retries.count must be 0"):
        Settings(verifier={"retries": {"count": 2}})
    assert Settings().retry == RetryPolicy(rounds=2, first_delay_s=1.0)
    with pytest.warns(DeprecationWarning, match="verifier_retries"):
        assert Settings(verifier_retries=4).retry.rounds == 4  # type: ignore[call-arg]


def test_an_unknown_key_is_rejected_with_a_suggestion() -> None:
    with pytest.raises(ValidationError, match=r"verifier.timeouts.lean: unknown key; did you mean lean_s\?"):
        Settings(verifier={"timeouts": {"lean": 3}})


def test_the_flag_is_merged_into_the_environment_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIMINA_API_VERIFIER__LIMITS__BATCH_SIZE", "3")
    settings = settings_from(parse_args(["--verifier-url", "http://flag:1"]))
    assert settings.verifier.endpoint.url == "http://flag:1" and settings.verifier.limits.batch_size == 3


def test_the_verifier_gets_the_object_whole() -> None:
    settings = Settings(verifier={"endpoint": {"url": "http://v:1"}})
    assert Verifier(settings.verifier).options is settings.verifier


def test_old_flat_names_still_work_deprecated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIMINA_API_VERIFIER_URL", "http://old:1")
    with pytest.warns(DeprecationWarning, match="renamed"):
        settings = Settings(lean_timeout_s=5, verifier_options={"cache": "/c"})
    assert settings.verifier.endpoint.url == "http://old:1" and settings.verifier.timeouts.lean_s == 5
    assert settings.verifier.cache == "/c"
