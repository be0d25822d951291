"""Settings parsing (the YAML and the dataclasses agree) and how dataset rows become problems."""

from dataclasses import replace

import pytest
from kimina_rl.scoring import RewardProblem
from kimina_rl.settings import RL_VERIFIER_DEFAULTS, FixSettings, Settings
from kimina_verify import Endpoint
from omegaconf import DictConfig, OmegaConf


def test_yaml_defaults_match_the_dataclass_defaults(base_config: DictConfig) -> None:
    from_yaml = Settings.from_mapping(base_config.kimina_rl)
    assert from_yaml == Settings()


def test_partial_mapping_and_format_overrides() -> None:
    settings = Settings.from_mapping(
        {
            "verifier": {"endpoint": {"url": "http://lean:8000"}},
            "format": {"min_tactic_blocks": 1, "code_languages": ["lean4"]},
        }
    )
    assert settings.verifier == replace(RL_VERIFIER_DEFAULTS, endpoint=Endpoint("http://lean:8000"))
    assert settings.fix == FixSettings()
    config = settings.format_config()
    assert (config.min_tactic_blocks, config.code_languages) == (1, ("lean4",))
    assert (
        Settings.from_mapping(OmegaConf.create({"history": {"path": "/tmp/h.sqlite"}})).history_path == "/tmp/h.sqlite"
    )


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        ({"verifer": {}}, r"kimina_rl.verifer: unknown key; did you mean verifier\?"),
        ({"fix": {"max_errors": 0}}, "kimina_rl.fix: max_errors must be positive"),
        ({"scorer": {"infra_retry_s": -1}}, "kimina_rl.scorer: infra_retry_s must not be negative"),
        ({"history": {"file": "x"}}, r"kimina_rl.history.file: unknown key"),
        (
            {"verifier": {"limits": {"batch_sise": 2}}},
            r"kimina_rl.verifier.limits.batch_sise: .*did you mean batch_size",
        ),
        ({"verifier": {"timeouts": {"lean_s": "x"}}}, r"kimina_rl.verifier.timeouts.lean_s: Input should be a valid"),
        ({"verifier": {"timeout_s": 5}}, r"kimina_rl.verifier.timeout_s is now kimina_rl.verifier.timeouts.lean_s"),
        ({"verifier": {"retries": {"count": 2}}}, "retries.count must be 0"),
    ],
)
def test_bad_settings_name_the_key(mapping: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Settings.from_mapping(mapping)


def test_unknown_format_field_is_named() -> None:
    with pytest.raises(ValueError, match=r"kimina_rl.format.min_blocks: unknown key; did you mean min_tactic_blocks\?"):
        Settings.from_mapping({"format": {"min_blocks": 1}}).format_config()


def test_kimina_data_row() -> None:
    info = {
        "uid": "u-1",
        "header": "import Mathlib\n\n",
        "formal_statement": "theorem t : 1 = 1 := by",
        "informal_problem": "Show 1 = 1.",
    }
    problem = RewardProblem.from_row("numina-lean", "theorem t : 1 = 1 := by", info)
    assert problem == RewardProblem(
        "import Mathlib\n\ntheorem t : 1 = 1 := by", "u-1", "numina-lean", "Show 1 = 1.", training=True
    )


def test_upstream_and_minimal_rows() -> None:
    upstream = RewardProblem.from_row(
        "minif2f", "Should be solved in Lean 4.", {"formal_statement": "theorem a : True := by"}
    )
    assert upstream.formal_statement == "theorem a : True := by"
    assert upstream.problem_id.startswith("sha256:")  # stable id without a uid
    assert RewardProblem.from_row("x", "theorem b : True := by", None).formal_statement == "theorem b : True := by"
    assert not RewardProblem.from_row("x", "theorem b : True := by", {"split": "test"}).training
    with pytest.raises(ValueError, match="no formal statement"):
        RewardProblem.from_row("x", None, {"uid": "y"})


def test_the_scorer_passes_the_verifier_options_whole() -> None:
    from kimina_rl.service import _build_verifier

    settings = Settings.from_mapping({"verifier": {"endpoint": {"url": "http://lean:8000"}, "cache": None}})
    assert _build_verifier(settings).options is settings.verifier
