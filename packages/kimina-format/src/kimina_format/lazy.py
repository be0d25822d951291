"""Lazy exports for a package's `__init__` (PEP 562): names imported from their module on first use, old names that warn.

Every kimina package keeps `import kimina_x` fast by loading its heavy entry points only when asked for; this is the
one `__getattr__` they share (kimina-format depends on nothing, so every package can use it).
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    module_name: str,
    lazy: Mapping[str, str] | None = None,
    *,
    deprecated: Mapping[str, tuple[str, str]] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level `__getattr__` and `__dir__` of module `module_name`.

    Args:
        module_name: The module's `__name__`, named in the AttributeError for an unknown attribute (in the words of
            Python's own: ``module 'kimina_x' has no attribute 'y'``).
        lazy: ``{name: "package.module"}``: `name` is imported from that module each time it is asked for (the
            import system caches the module, so only the first access costs an import).
        deprecated: ``{old_name: ("package.module", "new_name")}``: the old name still works, returns the new one and
            warns ``<module_name>.<old_name> is deprecated: use <package.module>.<new_name>`` (DeprecationWarning,
            pointing at the caller's line). Deprecated names stay out of `__dir__`.

    Returns:
        `(__getattr__, __dir__)`, to assign at the module's top level.

    Example:
        >>> getattr_, dir_ = lazy_exports("pkg", {"dedent": "textwrap"}, deprecated={"old": ("textwrap", "indent")})
        >>> getattr_("dedent").__name__
        'dedent'
        >>> getattr_("missing")
        Traceback (most recent call last):
        ...
        AttributeError: module 'pkg' has no attribute 'missing'
    """
    lazy_names = dict(lazy or {})
    old_names = dict(deprecated or {})

    def __getattr__(name: str) -> Any:
        if name in lazy_names:
            return getattr(importlib.import_module(lazy_names[name]), name)
        if name in old_names:
            module, new = old_names[name]
            # stacklevel 2: the line that read the attribute (Python calls this function directly from there).
            warnings.warn(f"{module_name}.{name} is deprecated: use {module}.{new}", DeprecationWarning, stacklevel=2)
            return getattr(importlib.import_module(module), new)
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        module = sys.modules.get(module_name)
        present = set(vars(module)) if module is not None else set()
        return sorted(present | set(lazy_names))

    return __getattr__, __dir__
