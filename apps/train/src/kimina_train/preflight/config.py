"""Config check: every value against verl's own config dataclasses, then verl's `validate_config`."""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import io
import types
import typing
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from kimina_train.preflight.checklist import CheckResult, Status

__all__ = ["TypeProblem", "check_verl_config", "type_problems"]

if TYPE_CHECKING:
    from omegaconf import DictConfig

_FIX = "fix the recipe key or override it names"


@dataclasses.dataclass(frozen=True)
class TypeProblem:
    """A value verl would read as the wrong type.

    Attributes:
        key: The dotted key (`actor_rollout_ref.actor.optim.lr`).
        value: What the config holds.
        expected: The type verl declares, as written in its dataclass.
        owner: The dataclass that declares it (`verl.workers.config.FSDPOptimizerConfig`).
    """

    key: str
    value: Any
    expected: str
    owner: str

    @property
    def message(self) -> str:
        """One line: the key, its value and what verl takes."""
        return f"{self.key} is {self.value!r}, but verl's {self.owner.rpartition('.')[2]} takes {self.expected} there"


def _dataclass(target: Any) -> type | None:
    if not isinstance(target, str) or "." not in target:
        return None
    module, _, name = target.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    return cls if dataclasses.is_dataclass(cls) and isinstance(cls, type) else None


def _conforms(value: Any, hint: Any) -> bool:
    """Whether `value` (plain YAML data) is what the annotation `hint` declares; unknown kinds of hint pass."""
    origin = typing.get_origin(hint)
    if hint is Any or isinstance(hint, typing.TypeVar):
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_conforms(value, arg) for arg in typing.get_args(hint))
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    if value is None:
        return hint is type(None)
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if hint is type(None):
        return False
    if origin in (list, tuple) or hint in (list, tuple):
        return isinstance(value, list | tuple)
    if origin is dict or hint is dict:
        return isinstance(value, dict)
    return True  # nested dataclasses (checked through their own `_target_`), enums, ...


def _describe(hint: Any) -> str:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join("None" if arg is type(None) else _describe(arg) for arg in typing.get_args(hint))
    if typing.get_origin(hint) is not None:
        return str(hint).replace("typing.", "")
    return str(getattr(hint, "__name__", hint))


def type_problems(config: dict[str, Any], where: str = "") -> Iterator[TypeProblem]:
    """Values of `config` (resolved, plain data) that verl's dataclass for their section would not take.

    Every section with a `_target_` naming a verl dataclass is checked against that dataclass's annotations, as
    verl builds them at launch (`omega_conf_to_dataclass`) without checking. `None` always passes: verl's own
    configs use it for "unset" in fields whose annotation does not say Optional.
    """
    cls = _dataclass(config.get("_target_"))
    hints: dict[str, Any] = {}
    if cls is not None:
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # an annotation naming a module this install lacks (vllm, megatron, ...)
            hints = {}
    for key, value in config.items():
        path = f"{where}.{key}" if where else str(key)
        if isinstance(value, dict):
            yield from type_problems(value, path)
        elif key in hints and value is not None:
            if not _conforms(value, hints[key]):
                assert cls is not None
                yield TypeProblem(path, value, _describe(hints[key]), f"{cls.__module__}.{cls.__qualname__}")


def check_verl_config(config: DictConfig) -> CheckResult:
    """Check value types, then run the checks `main_ppo` runs first, so a bad override fails here, not on Ray."""
    from omegaconf import OmegaConf
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import validate_config

    plain = OmegaConf.to_container(config, resolve=True)
    assert isinstance(plain, dict)
    problem = next(type_problems(plain), None)
    if problem is not None:
        return CheckResult("config", Status.FAIL, problem.message, _FIX)
    try:
        # validate_config prints a progress line per check; the checklist says the same in one line.
        with contextlib.redirect_stdout(io.StringIO()):
            validate_config(
                config=config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config)
            )
    except Exception as exc:  # verl raises AssertionError, ValueError, omegaconf errors ... for a bad config
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return CheckResult("config", Status.FAIL, f"verl rejects the config: {text}", _FIX)
    return CheckResult("config", Status.OK, "value types and verl's validate_config passed (batch sizes, lengths)")
