"""`BuildConfig`: every option of a promptset build, read from the `data:` section of a YAML recipe or from the CLI.

The YAML keys are the CLI's long options with `_` for `-`, so a recipe reads like the command it replaces.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import InitVar, dataclass, field, replace
from pathlib import Path
from typing import Any

from kimina_verify.config import ConfigError as _LoaderError
from kimina_verify.config import dump_config, merge_config, parse_config
from kimina_verify.options import Retries, Timeouts, VerifierOptions

from kimina_data.sources import SourceSpec
from kimina_data.statement import DEFAULT_HEADER
from kimina_data.steps.weighting import Weighting
from kimina_data.variants.gemini import GeminiSettings

__all__ = ["DATA_VERIFIER_DEFAULTS", "BuildConfig", "ConfigError", "load_data_section"]


class ConfigError(_LoaderError):
    """A configuration that cannot be used; the message names the key and what is wrong."""


DATA_VERIFIER_DEFAULTS = VerifierOptions(timeouts=Timeouts(lean_s=60.0), retries=Retries(count=2, backoff_s=2.0))
"""kimina-data's defaults for the statement check's client (kimina-verify's, but for 2 retries from 2 s): its keys
absent from a `verifier:` mapping keep these."""

# The flat keys of kimina-data 0.3, and where they live now (read for one more release, with a DeprecationWarning).
_MOVED = {"verify_url": ("endpoint", "url"), "verify_api_key": ("endpoint", "api_key")}


@dataclass(frozen=True, slots=True)
class BuildConfig:
    """Options of `build_promptset`.

    Attributes:
        sources: What to read (at least one).
        out: Output folder: `train.parquet`, `val.parquet`, `stats.json`, `win_rates.png`, `rejected.jsonl`.
        max_win_rate: Problems solved more often than this are dropped.
        keep_missing_win_rate: Keep problems without a win rate.
        decontaminate: Evaluation sets whose statements training rows must not have (paths, hub ids, or `minif2f`
            for the miniF2F file shipped with kimina-data); empty turns the step off. None, the default, means miniF2F when its file
            can be found, and a warning that nothing is checked when it cannot.
        dedup: De-duplicate by normalised statement.
        variants: Gemini variants asked per problem; 0, the default, skips the step (it needs `GEMINI_API_KEY` and
            spends money, so it runs only when asked for).
        max_calls: Most Gemini calls in one run (answers already cached do not count).
        concurrency: Gemini calls in flight at once.
        variants_cache: The answer cache; defaults to `out / "gemini_cache.sqlite"`.
        gemini: Model, rate limit, retries and prices of the Gemini calls.
        verifier: The `kimina_verify.Verifier`'s options for the variants' statement check, passed whole
            (`endpoint.url`: a kimina-verify or kimina-lean-server; None reads `$LEAN_SERVER_API_URL`, and with
            neither the check is skipped with a warning). Defaults: `DATA_VERIFIER_DEFAULTS`.
        weighting: Copies per problem as a function of its win rate (train split only).
        val_fraction: Share of problems (with their variants) held out for validation.
        seed: Seed of the train/validation assignment.
        default_header: Header for statements that come without imports.
        rectified: For miniF2F, use the rectified statements where they exist.
        cache_dir: The Hugging Face `datasets` cache folder (None: its default).
        verify_url: Deprecated (kimina-data 0.4): `verifier.endpoint.url`. Constructor only.
        verify_api_key: Deprecated (kimina-data 0.4): `verifier.endpoint.api_key`. Constructor only.
    """

    sources: tuple[SourceSpec, ...]
    out: Path
    max_win_rate: float = 0.5
    keep_missing_win_rate: bool = True
    decontaminate: tuple[str, ...] | None = None
    dedup: bool = True
    variants: int = 0
    max_calls: int = 1000
    concurrency: int = 4
    variants_cache: Path | None = None
    gemini: GeminiSettings = field(default_factory=GeminiSettings)
    verifier: VerifierOptions = field(default_factory=lambda: DATA_VERIFIER_DEFAULTS)
    weighting: Weighting = field(default_factory=Weighting)
    val_fraction: float = 0.02
    seed: int = 0
    default_header: str = DEFAULT_HEADER
    rectified: bool = True
    cache_dir: Path | None = None
    verify_url: InitVar[str | None] = None
    verify_api_key: InitVar[str | None] = None

    def __post_init__(self, verify_url: str | None, verify_api_key: str | None) -> None:
        old = {"verify_url": verify_url, "verify_api_key": verify_api_key}
        given = {name: value for name, value in old.items() if value is not None}
        if given:
            warnings.warn(_moved_message(given), DeprecationWarning, stacklevel=3)
            endpoint = self.verifier.endpoint
            endpoint = replace(endpoint, url=verify_url or endpoint.url, api_key=verify_api_key or endpoint.api_key)
            object.__setattr__(self, "verifier", replace(self.verifier, endpoint=endpoint))
        if not self.sources:
            raise ConfigError("no source: give at least one `--source` (or `sources:` in the config)")
        checks = {
            "max_win_rate": 0.0 <= self.max_win_rate <= 1.0,
            "variants": self.variants >= 0,
            "max_calls": self.max_calls >= 0,
            "concurrency": self.concurrency >= 1,
            "val_fraction": 0.0 <= self.val_fraction < 1.0,
        }
        for name, ok in checks.items():
            if not ok:
                raise ConfigError(f"{name} = {getattr(self, name)!r} is out of range")
        if self.decontaminate is not None and not all(self.decontaminate):
            raise ConfigError('decontaminate: expected paths or hub ids (or "minif2f", or false), got an empty one')
        for name in ("out", "variants_cache", "cache_dir"):  # `~` in a recipe means the user's home
            path = getattr(self, name)
            if path is not None:
                if not str(path) or str(path) == ".":
                    raise ConfigError(f"{name}: expected a path, got {str(path)!r}")
                object.__setattr__(self, name, Path(path).expanduser())

    @property
    def cache_path(self) -> Path:
        """Where Gemini answers are cached."""
        return self.variants_cache or self.out / "gemini_cache.sqlite"

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> BuildConfig:
        """Build a config from a recipe's `data:` section (keys as in the CLI, `-` or `_`).

        `sources` (or `source`) is a path, hub id or `{path, kind, name, split}` mapping, or a list of them;
        `gemini` and `weighting` are mappings of their own fields, `weighting.tiers` a list of `[max_win_rate,
        copies]` pairs.

        Raises:
            ConfigError: An unknown key, a value of the wrong type, or a value out of range.
        """
        values = {str(k).replace("-", "_"): v for k, v in data.items()}
        if "source" in values:
            values["sources"] = values.pop("source")
        if "out" not in values:
            raise ConfigError("no output folder: give `--out` (or `out:` in the config)")
        # The recipe's shorthands, spelled out before the shared loader reads the rest by the field types.
        if "sources" in values:
            try:
                values["sources"] = _sources(values["sources"])
            except (TypeError, ValueError) as e:
                raise ConfigError(f"data.sources: {e}") from None
        if "decontaminate" in values:
            values["decontaminate"] = _references(values["decontaminate"])
        if isinstance(values.get("gemini"), Mapping):
            values["gemini"] = {str(k).replace("-", "_"): v for k, v in values["gemini"].items()}
        values["verifier"] = _verifier_section(values)
        return parse_config(cls, {"sources": (), **values}, where="data", error=ConfigError)


def load_data_section(path: Path) -> dict[str, Any]:
    """The `data:` section of a YAML recipe.

    Raises:
        ConfigError: The file is missing, is not YAML, or has no `data:` mapping.
    """
    import yaml

    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{where}: not valid YAML ({getattr(e, 'problem', e)})") from None
    section = document.get("data") if isinstance(document, dict) else None
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: no `data:` section")
    return section


def _verifier_section(values: dict[str, Any]) -> Any:
    """The `verifier` mapping over kimina-data's defaults, with the 0.3 flat keys moved into it (they warn)."""
    moved = {name: values.pop(name) for name in list(values) if name in _MOVED}
    verifier = values.get("verifier")
    if isinstance(verifier, VerifierOptions):
        verifier = dump_config(verifier)
    if not isinstance(verifier, Mapping) and verifier is not None:
        return verifier  # not a mapping: the loader says so, naming the key
    section = dump_config(DATA_VERIFIER_DEFAULTS)
    given = {name: value for name, value in moved.items() if value is not None}
    if given:
        warnings.warn(_moved_message(given, where="data."), DeprecationWarning, stacklevel=3)
        for name, value in given.items():
            group, key = _MOVED[name]
            section[group] = {**section[group], key: value}
    # A key given under `verifier` wins over its old flat spelling.
    return merge_config(section, verifier or {})


def _moved_message(given: Mapping[str, object], *, where: str = "") -> str:
    moves = ", ".join(f"{where}{name} is now {where}verifier.{'.'.join(_MOVED[name])}" for name in given)
    return f"{moves} (kimina-data 0.4 passes one kimina_verify.VerifierOptions to the statement check)"


def _sources(value: Any) -> tuple[SourceSpec, ...]:
    items = value if isinstance(value, list | tuple) else [value]
    return tuple(item if isinstance(item, SourceSpec) else SourceSpec.parse(item) for item in items)


def _references(value: Any) -> Any:
    # `true` asks for the default (miniF2F when found), `false` for none; one path stands for a list of one.
    if value is None or value is True:
        return None
    if value is False:
        return ()
    return [value] if isinstance(value, str | Path) else value
