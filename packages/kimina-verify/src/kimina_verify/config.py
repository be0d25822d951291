"""One way to read configuration (YAML, JSON, environment variables) into the frozen dataclasses of every package.

It lives here because kimina-verify is the lowest package every other one depends on that may have dependencies
(kimina-format must have none), and pydantic is already part of its core. Every package's options stay plain
dataclasses; pydantic only reads them, through `parse_config`:

- unknown keys are rejected at any depth, with the closest known key suggested;
- values are checked against the field types, strictly (no bool for a number, no number for a string; an int is a
  float), and the first error is one line that names the key (`kimina_rl.verifier.limits.batch_size: ...`);
- `strings=True` reads text values the way environment variables give them (`"60"` is a number, `"true"` a bool).

`field_help` builds an argparse help string from a field's documented meaning and its default, so that CLI help is
never a second copy of the defaults.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
import json
import re
import types
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = [
    "ConfigError",
    "closest",
    "dump_config",
    "field_default",
    "field_help",
    "merge_config",
    "parse_config",
    "suggest",
]


class ConfigError(ValueError):
    """A configuration that cannot be used; the message is one line naming the key and what is wrong."""


def parse_config[T](
    cls: type[T],
    data: Mapping[str, Any] | None,
    *,
    where: str = "",
    error: type[ValueError] = ConfigError,
    strings: bool = False,
    defaults: T | None = None,
) -> T:
    """Build the dataclass `cls` (nested dataclasses included) from plain data.

    Args:
        cls: A dataclass; nested dataclass fields are read from nested mappings.
        data: The values (a YAML or JSON mapping, or parsed environment variables); absent keys keep their defaults.
        where: Where the data came from, prefixed to every key in messages (`kimina_rl.verifier`).
        error: The exception class to raise (a package's own `ConfigError`, or this one).
        strings: Accept text for numbers and bools (environment variables); otherwise types must match.
        defaults: A caller's own defaults (an instance of `cls`): keys absent from `data`, at any depth, keep these
            rather than the class's.

    Raises:
        ValueError: Of class `error`: an unknown key (with a suggestion), a missing required key, a value of the wrong
            type, or a value the dataclass itself rejects.

    Example:
        >>> from kimina_verify.options import Limits
        >>> parse_config(Limits, {"batch_size": 16})
        Limits(batch_size=16, max_concurrency=8)
        >>> parse_config(Limits, {"batch_sise": 16}, where="limits")
        Traceback (most recent call last):
        ...
        kimina_verify.config.ConfigError: limits.batch_sise: unknown key; did you mean batch_size?
    """
    from pydantic import ValidationError

    if data is not None and not isinstance(data, Mapping):
        raise error(f"{where or 'configuration'}: expected a mapping, got {type(data).__name__}")
    adapter = _adapter(typing.cast(type, cls))
    values = dict(data or {})
    try:
        if defaults is not None:
            values = merge_config(dump_config(defaults), values)
        if strings:
            (value,) = adapter.validate_python([values])
        else:
            (value,) = adapter.validate_json(json.dumps([values], default=_plain), strict=True)
    except ValidationError as exc:
        raise error(_message(cls, exc, where)) from None
    except (TypeError, ValueError) as exc:  # not JSON-like data, or a validator's own error
        raise error(f"{where or 'configuration'}: {exc}") from None
    return typing.cast(T, value)


def dump_config(value: object) -> dict[str, Any]:
    """A dataclass as JSON-ready data that `parse_config` reads back to an equal value."""
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        raise TypeError(f"expected a dataclass instance, got {type(value).__name__}")
    dumped = _adapter(type(value)).dump_python([value], mode="json")[0]
    return typing.cast(dict[str, Any], dumped)


def merge_config(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """`top` over `base`, nested mappings merged key by key (a recipe's partial section over defaults)."""
    merged = dict(base)
    for key, value in top.items():
        below = merged.get(key)
        if isinstance(value, Mapping) and isinstance(below, Mapping):
            merged[key] = merge_config(below, value)
        else:
            merged[key] = value
    return merged


def closest(name: str, known: Iterable[object]) -> str | None:
    """The known name closest to a misspelt one, if any is close."""
    close = difflib.get_close_matches(name, [str(k) for k in known], n=1, cutoff=0.6)
    return close[0] if close else None


def suggest(name: str, known: Iterable[object]) -> str:
    """`; did you mean X?` for the known name closest to a misspelt one, or an empty string."""
    match = closest(name, known)
    return f"; did you mean {match}?" if match else ""


def field_default(cls: type, name: str) -> Any:
    """The default of the dataclass field `name` (its factory called), or `dataclasses.MISSING`."""
    found = _field(cls, name)
    if found.default is not dataclasses.MISSING:
        return found.default
    if found.default_factory is not dataclasses.MISSING:
        return found.default_factory()
    return dataclasses.MISSING


def field_help(cls: type, name: str, text: str | None = None, *, default: object = dataclasses.MISSING) -> str:
    """Argparse help for the field `name` of `cls`: its documented meaning and its default, read from the class.

    Args:
        cls: A dataclass whose docstring has a Google-style `Attributes:` section.
        name: The field.
        text: Help to use instead of the documented meaning.
        default: What to show as the default instead of the field's own (e.g. `"$LEAN_SERVER_API_URL"`).
    """
    meaning = text if text is not None else _documented(cls).get(name, "")
    shown = field_default(cls, name) if default is dataclasses.MISSING else default
    if shown is dataclasses.MISSING or shown is None:  # the documented meaning says what None does
        suffix = ""
    else:
        suffix = f" (default: {shown})"
    return (meaning.rstrip(".") + suffix).replace("%", "%%")


@functools.cache
def _adapter(cls: type) -> TypeAdapter[list[Any]]:
    # pydantic takes no config for a dataclass itself (it could have its own), but does for a list of them, and
    # passes it down to every nested stdlib dataclass: that is how `extra="forbid"` reaches every level.
    from pydantic import ConfigDict, TypeAdapter

    return TypeAdapter(list[cls], config=ConfigDict(extra="forbid", allow_inf_nan=False))  # type: ignore[valid-type]


def _plain(value: object) -> object:
    """JSON form of what YAML and Python callers put in configs besides JSON types."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"cannot read a {type(value).__name__} as configuration: {value!r}")


_UNKNOWN = {"unexpected_keyword_argument", "extra_forbidden"}


def _message(cls: type, exc: Any, where: str) -> str:
    errors = exc.errors(include_url=False)
    first = errors[0]
    loc = [str(part) for part in first["loc"][1:]]  # [0] is the index in the one-item list
    key = ".".join([where, *loc] if where else loc) or "configuration"
    if first["type"] in _UNKNOWN:
        known = _known_keys(cls, loc[:-1])
        text = f"{key}: unknown key{suggest(loc[-1], known) if loc else ''}"
    elif first["type"] == "missing" or first["type"] == "missing_argument":
        text = f"{key}: missing (required)"
    else:
        message = re.sub(r"^(Value|Assertion) error, ", "", str(first["msg"]))
        shown = first.get("input")
        text = f"{key}: {message}" + (f", got {shown!r}" if first["type"] != "value_error" else "")
    more = len(errors) - 1
    return text + (f" (and {more} more error{'s' if more > 1 else ''})" if more else "")


def _known_keys(cls: type, path: list[str]) -> list[str]:
    """The field names of the dataclass found at `path` inside `cls` (empty when the path leaves dataclasses)."""
    current: Any = cls
    for part in path:
        current = _dataclass_in(_hints(current).get(part)) if _is_dataclass_type(current) else None
        if current is None:
            return []
    return [f.name for f in dataclasses.fields(current)] if _is_dataclass_type(current) else []


def _is_dataclass_type(value: object) -> bool:
    return isinstance(value, type) and dataclasses.is_dataclass(value)


def _dataclass_in(hint: object) -> type | None:
    if _is_dataclass_type(hint):
        return typing.cast(type, hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType, typing.Annotated):
        for arg in typing.get_args(hint):
            found = _dataclass_in(arg)
            if found is not None:
                return found
    return None


def _hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception:  # an annotation that does not resolve: no suggestion rather than no message
        return {}


def _field(cls: type, name: str) -> dataclasses.Field[Any]:
    for found in dataclasses.fields(cls):
        if found.name == name:
            return found
    raise KeyError(f"{cls.__name__} has no field {name!r}")


@functools.cache
def _documented(cls: type) -> dict[str, str]:
    """The `Attributes:` section of a Google-style class docstring, as {name: one-line text}."""
    doc = inspect.getdoc(cls) or ""
    found: dict[str, str] = {}
    inside, current = False, ""
    for line in doc.splitlines():
        if line.strip() == "Attributes:":
            inside = True
            continue
        if not inside:
            continue
        if line and not line.startswith(" "):
            break  # the next section
        entry = re.match(r"^    (\w+)(?: \([^)]*\))?: (.*)$", line)
        if entry:
            current = entry.group(1)
            found[current] = entry.group(2).strip()
        elif current and line.strip():
            found[current] += " " + line.strip()
    return found
