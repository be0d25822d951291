import warnings
from dataclasses import replace
from pathlib import Path

import pytest
from kimina_data.config import DATA_VERIFIER_DEFAULTS, BuildConfig, ConfigError, load_data_section
from kimina_data.sources import SourceKind, SourceSpec
from kimina_data.steps import Weighting
from kimina_data.variants import GeminiSettings
from kimina_verify import Endpoint, Retries, Timeouts, VerifierOptions

RECIPE = """\
model: {path: Qwen/Qwen3-1.7B}   # other sections belong to the training app
data:
  sources:
    - AI-MO/NuminaMath-LEAN
    - {path: extra.jsonl, kind: kimina-promptset, name: promptset}
  out: data/promptset
  max-win-rate: 0.4
  keep_missing_win_rate: false
  variants: 2
  max_calls: 50
  gemini: {model: gemini-2.5-pro, requests_per_minute: 30, temperature: 0.8}
  verifier: {endpoint: {url: http://localhost:8000}, timeouts: {lean_s: 30}}
  weighting: {tiers: [[0, 6], [0.2, 2]], unknown: 2}
  val_fraction: 0.05
  seed: 7
"""


def test_a_recipes_data_section_becomes_a_typed_config(tmp_path: Path) -> None:
    (tmp_path / "recipe.yaml").write_text(RECIPE)
    config = BuildConfig.from_mapping(load_data_section(tmp_path / "recipe.yaml"))
    assert config.sources == (
        SourceSpec("AI-MO/NuminaMath-LEAN"),
        SourceSpec("extra.jsonl", SourceKind.PROMPTSET, "promptset"),
    )
    assert config.out == Path("data/promptset")
    assert (config.max_win_rate, config.keep_missing_win_rate, config.variants, config.max_calls) == (0.4, False, 2, 50)
    assert config.gemini == GeminiSettings(model="gemini-2.5-pro", requests_per_minute=30, temperature=0.8)
    assert config.weighting == Weighting(tiers=((0.0, 6), (0.2, 2)), unknown=2)
    assert config.verifier == replace(
        DATA_VERIFIER_DEFAULTS, endpoint=Endpoint("http://localhost:8000"), timeouts=Timeouts(lean_s=30)
    )
    assert (config.val_fraction, config.seed) == (0.05, 7)
    assert config.cache_path == Path("data/promptset/gemini_cache.sqlite")


def test_defaults_are_the_upstream_recipe_without_paid_calls() -> None:
    config = BuildConfig.from_mapping({"source": "x.jsonl", "out": "o"})
    assert (config.max_win_rate, config.keep_missing_win_rate, config.dedup) == (0.5, True, True)
    assert config.variants == 0  # Gemini variants need a key and cost money: only when asked for
    assert config.verifier == DATA_VERIFIER_DEFAULTS
    assert (config.verifier.endpoint.url, config.verifier.retries) == (None, Retries(count=2, backoff_s=2.0))


def test_the_verifier_section_keeps_kimina_datas_defaults_for_what_it_does_not_set() -> None:
    config = BuildConfig.from_mapping({"source": "x", "out": "o", "verifier": {"endpoint": {"api_key": "k"}}})
    assert config.verifier == replace(DATA_VERIFIER_DEFAULTS, endpoint=Endpoint(api_key="k"))
    with pytest.raises(ConfigError, match=r"data.verifier.endpoint.ulr: unknown key; did you mean url\?"):
        BuildConfig.from_mapping({"source": "x", "out": "o", "verifier": {"endpoint": {"ulr": "u"}}})
    options = VerifierOptions(Endpoint("http://v:8000"))
    assert BuildConfig.from_mapping({"source": "x", "out": "o", "verifier": options}).verifier == options


def test_the_old_flat_verify_keys_still_work_and_say_where_they_are_now() -> None:
    old = {"source": "x", "out": "o", "verify_url": "http://lean:8000", "verify-api-key": "k"}
    with pytest.warns(DeprecationWarning, match=r"data.verify_url is now data.verifier.endpoint.url") as caught:
        config = BuildConfig.from_mapping(old)
    assert "data.verify_api_key is now data.verifier.endpoint.api_key" in str(caught[0].message)
    assert caught[0].filename == __file__  # the warning points at the caller
    assert config.verifier == replace(DATA_VERIFIER_DEFAULTS, endpoint=Endpoint("http://lean:8000", "k"))
    # The new key wins over the old one.
    with pytest.warns(DeprecationWarning):
        both = BuildConfig.from_mapping({**old, "verifier": {"endpoint": {"url": "http://new:8000"}}})
    assert both.verifier.endpoint == Endpoint("http://new:8000", "k")


def test_the_old_constructor_keywords_still_work_and_warn() -> None:
    with pytest.warns(DeprecationWarning, match=r"verify_url is now verifier.endpoint.url") as caught:
        config = BuildConfig(sources=(SourceSpec("x"),), out=Path("o"), verify_url="http://lean:8000")
    assert caught[0].filename == __file__
    assert config.verifier == replace(DATA_VERIFIER_DEFAULTS, endpoint=Endpoint("http://lean:8000"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new spelling does not warn
        BuildConfig(sources=(SourceSpec("x"),), out=Path("o"), verifier=config.verifier)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"source": "x", "out": "o", "max_winrate": 0.5},
            r"data.max_winrate: unknown key; did you mean max_win_rate\?",
        ),
        ({"source": "x", "out": "o", "variants": "two"}, "data.variants: Input should be a valid integer, got 'two'"),
        ({"source": "x", "out": "o", "dedup": 1}, "data.dedup: Input should be a valid boolean, got 1"),
        ({"source": "x", "out": "o", "variants": True}, "data.variants: Input should be a valid integer, got True"),
        ({"source": "x", "out": "o", "max_win_rate": 1.5}, "max_win_rate = 1.5 is out of range"),
        ({"source": "x", "out": "o", "weighting": {"tiers": [[0.5, 2], [0.1, 3]]}}, "sorted by win rate"),
        (
            {"source": "x", "out": "o", "gemini": {"modle": "x"}},
            r"data.gemini.modle: unknown key; did you mean model\?",
        ),
        ({"source": {"kind": "minif2f"}, "out": "o"}, "needs `path`"),
        ({"out": "o"}, "no source"),
        ({"source": "x"}, "no output folder"),
    ],
)
def test_bad_options_name_the_key_and_the_problem(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        BuildConfig.from_mapping(data)


def test_config_files_that_cannot_be_used_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such config file"):
        load_data_section(tmp_path / "missing.yaml")
    (tmp_path / "bad.yaml").write_text("data:\n  out: [unclosed\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml line \d+: not valid YAML"):
        load_data_section(tmp_path / "bad.yaml")
    (tmp_path / "none.yaml").write_text("model: {}\n")
    with pytest.raises(ConfigError, match="no `data:` section"):
        load_data_section(tmp_path / "none.yaml")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        (True, None),
        (False, ()),
        ([], ()),
        ("minif2f", ("minif2f",)),
        (["minif2f", "eval/putnam.jsonl"], ("minif2f", "eval/putnam.jsonl")),
    ],
)
def test_decontaminate_takes_references_or_false(value: object, expected: tuple[str, ...] | None) -> None:
    config = BuildConfig.from_mapping({"source": "x", "out": "o", "decontaminate": value})
    assert config.decontaminate == expected


def test_decontamination_is_the_default() -> None:
    assert BuildConfig.from_mapping({"source": "x", "out": "o"}).decontaminate is None  # miniF2F when found


@pytest.mark.parametrize("value", [3, [""], ["a", 1]])
def test_decontaminate_rejects_what_is_not_a_reference(value: object) -> None:
    with pytest.raises(ConfigError, match=r"^data(\.decontaminate[.0-9]*)?: .*(valid|expected)"):
        BuildConfig.from_mapping({"source": "x", "out": "o", "decontaminate": value})
