"""`lazy_exports`: the one module `__getattr__` of every kimina package's `__init__`."""

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from kimina_format.lazy import lazy_exports


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A package `lazypkg` whose `__init__` exports `Heavy` lazily from `lazypkg.heavy` and warns for `OldHeavy`."""
    root = tmp_path / "lazypkg"
    root.mkdir()
    (root / "__init__.py").write_text(
        textwrap.dedent(
            """
            from kimina_format.lazy import lazy_exports

            LIGHT = 1
            __getattr__, __dir__ = lazy_exports(
                __name__, {"Heavy": "lazypkg.heavy"}, deprecated={"OldHeavy": ("lazypkg.heavy", "Heavy")}
            )
            """
        )
    )
    (root / "heavy.py").write_text("class Heavy:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "lazypkg"
    for name in [m for m in sys.modules if m.split(".")[0] == "lazypkg"]:
        del sys.modules[name]


def test_a_lazy_name_is_imported_on_first_use_only(package: str) -> None:
    module = importlib.import_module(package)
    assert "lazypkg.heavy" not in sys.modules
    heavy = module.Heavy
    assert "lazypkg.heavy" in sys.modules and heavy is sys.modules["lazypkg.heavy"].Heavy
    from lazypkg import Heavy  # type: ignore[import-not-found]  # `from ... import` goes through it too

    assert Heavy is heavy


def test_an_unknown_name_raises_pythons_own_attribute_error(package: str) -> None:
    module = importlib.import_module(package)
    with pytest.raises(AttributeError, match=r"^module 'lazypkg' has no attribute 'Missing'$"):
        module.Missing  # noqa: B018
    with pytest.raises(ImportError, match="cannot import name 'Missing'"):
        from lazypkg import Missing  # type: ignore[import-not-found]  # noqa: F401
    assert not hasattr(module, "Missing")


def test_an_old_name_warns_at_the_callers_line_and_returns_the_new_one(package: str) -> None:
    module = importlib.import_module(package)
    with pytest.warns(DeprecationWarning, match=r"^lazypkg.OldHeavy is deprecated: use lazypkg.heavy.Heavy$") as seen:
        assert module.OldHeavy is module.Heavy
    assert seen[0].filename == __file__


def test_dir_lists_the_lazy_names_but_not_the_deprecated_ones(package: str) -> None:
    names = dir(importlib.import_module(package))
    assert {"Heavy", "LIGHT", "__getattr__"} <= set(names) and "OldHeavy" not in names
    assert names == sorted(names)


def test_nothing_lazy_is_only_an_attribute_error() -> None:
    getattr_, dir_ = lazy_exports("nothing.here")
    with pytest.raises(AttributeError, match="module 'nothing.here' has no attribute 'x'"):
        getattr_("x")
    assert dir_() == []
