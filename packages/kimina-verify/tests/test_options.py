"""`VerifierOptions` and the shared config loader: round trips through YAML, JSON and env, and one-line errors."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from typing import Any

import pytest
import yaml
from kimina_verify import Checks, Endpoint, IntegrityPolicy, Limits, Retries, Timeouts, Verifier, VerifierOptions
from kimina_verify.config import ConfigError, dump_config, field_default, field_help, parse_config

CUSTOM = VerifierOptions(
    Endpoint("http://verifier:8000", "k", "v2"),
    Timeouts(lean_s=30.0, http_s=120.0),
    Retries(count=0, backoff_s=2.0),
    Limits(batch_size=16, max_concurrency=4),
    Checks(lean_checks=True, infotree="original", policy=IntegrityPolicy(allow_native_decide=False)),
    cache="/tmp/verdicts.sqlite",
    lean_env="v4.26.0",
)


def test_defaults_live_in_the_groups() -> None:
    options = VerifierOptions()
    assert (options.timeouts.lean_s, options.limits.batch_size, options.retries.count) == (60.0, 8, 3)
    assert options.checks.print_axioms and options.cache is None


@pytest.mark.parametrize("text", [json.dumps, yaml.safe_dump])
def test_round_trip_through_json_and_yaml(text: Any) -> None:
    data = yaml.safe_load(text(dump_config(CUSTOM)))
    assert parse_config(VerifierOptions, data) == CUSTOM


def test_partial_mapping_keeps_the_defaults() -> None:
    options = parse_config(VerifierOptions, {"limits": {"batch_size": 2}, "endpoint": {"url": "http://x"}})
    assert options == VerifierOptions(Endpoint("http://x"), limits=Limits(batch_size=2))


def test_environment_strings_are_read_as_their_types() -> None:
    env = {"timeouts": {"lean_s": "12.5"}, "retries": {"count": "0"}, "checks": {"print_axioms": "false"}}
    options = parse_config(VerifierOptions, env, strings=True)
    assert (options.timeouts.lean_s, options.retries.count, options.checks.print_axioms) == (12.5, 0, False)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"limits": {"batch_sise": 3}}, "verifier.limits.batch_sise: unknown key; did you mean batch_size?"),
        ({"timeout": 3}, "verifier.timeout: unknown key; did you mean timeouts?"),
        ({"checks": {"policy": {"allowed_axiom": []}}}, "did you mean allowed_axioms?"),
        ({"timeouts": {"lean_s": "soon"}}, "verifier.timeouts.lean_s: Input should be a valid number, got 'soon'"),
        ({"retries": {"count": True}}, "verifier.retries.count: Input should be a valid integer, got True"),
        ({"limits": {"batch_size": 0}}, "verifier.limits: batch_size and max_concurrency must be >= 1"),
        ({"endpoint": {"protocol": "v3"}}, "verifier.endpoint.protocol: Input should be 'auto', 'v2' or 'v1'"),
    ],
)
def test_errors_are_one_line_naming_the_key(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(VerifierOptions, data, where="verifier")
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_package_error_class_is_raised() -> None:
    class MyError(ValueError):
        pass

    with pytest.raises(MyError, match="unknown key"):
        parse_config(Limits, {"size": 1}, error=MyError)


def test_verifier_takes_the_object_whole() -> None:
    verifier = Verifier(CUSTOM)
    assert verifier.options is CUSTOM and verifier.url == "http://verifier:8000"
    assert verifier.policy == CUSTOM.checks.policy


def test_flat_and_grouped_forms_agree() -> None:
    flat = VerifierOptions.from_flat(url="http://x", timeout=5, batch_size=2, retries=0, print_axioms=False)
    assert flat == VerifierOptions(
        Endpoint("http://x"), Timeouts(lean_s=5), Retries(count=0), Limits(batch_size=2), Checks(print_axioms=False)
    )


def test_api_key_stays_out_of_the_repr() -> None:
    assert "secret" not in repr(VerifierOptions(Endpoint("http://x", "secret-k")))


def test_help_reads_the_documented_meaning_and_the_default() -> None:
    @dataclass(frozen=True)
    class Example:
        """An example.

        Attributes:
            rate: Share of rows kept, 0 to 100%.
            tags: Labels added.
        """

        rate: float = 0.5
        tags: tuple[str, ...] = field(default_factory=lambda: ("a",))

    assert field_help(Example, "rate") == "Share of rows kept, 0 to 100%% (default: 0.5)"
    assert field_default(Example, "tags") == ("a",)
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", help=field_help(Example, "rate"))
    assert "100% (default: 0.5)" in parser.format_help()


def test_server_environment_goes_through_the_same_loader() -> None:
    from kimina_verify.server.settings import ServerSettings

    settings = ServerSettings.from_env({"LEAN_SERVER_TIMEOUT": "5", "LEAN_SERVER_MAX_REPL_MEM": "1G"})
    assert (settings.timeout, settings.max_repl_mem) == (5.0, 1024)
    with pytest.raises(ValueError, match=r"^LEAN_SERVER_PORT='x': Input should be a valid integer"):
        ServerSettings.from_env({"LEAN_SERVER_PORT": "x"})
