"""`BuildConfig`: every option of a promptset build, read from the `data:` section of a YAML recipe or from the CLI.

The YAML keys are the CLI's long options with `_` for `-`, so a recipe reads like the command it replaces.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kimina_verify.config import ConfigError as _LoaderError
from kimina_verify.config import parse_config

from kimina_data.sources import SourceSpec
from kimina_data.statement import DEFAULT_HEADER
from kimina_data.steps.weighting import Weighting
from kimina_data.variants.gemini import GeminiSettings


class ConfigError(_LoaderError):
    """A configuration that cannot be used; the message names the key and what is wrong."""


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
        verify_url: kimina-verify (or kimina-lean-server) URL for the variants' statement check; None skips the check
            with a warning.
        verify_api_key: API key for that server, if it needs one.
        weighting: Copies per problem as a function of its win rate (train split only).
        val_fraction: Share of problems (with their variants) held out for validation.
        seed: Seed of the train/validation assignment.
        default_header: Header for statements that come without imports.
        rectified: For miniF2F, use the rectified statements where they exist.
        cache_dir: The Hugging Face `datasets` cache folder (None: its default).
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
    verify_url: str | None = None
    verify_api_key: str | None = None
    weighting: Weighting = field(default_factory=Weighting)
    val_fraction: float = 0.02
    seed: int = 0
    default_header: str = DEFAULT_HEADER
    rectified: bool = True
    cache_dir: Path | None = None

    def __post_init__(self) -> None:
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
