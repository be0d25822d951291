import re
import tomllib
from pathlib import Path

import kimina_verify
import pytest
from kimina_format.testing import package_modules, surface_problems
from kimina_verify import policy


def test_version_matches_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert kimina_verify.__version__ == pyproject["project"]["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", kimina_verify.__version__)


def test_ships_type_information() -> None:
    assert (Path(kimina_verify.__file__).parent / "py.typed").is_file()


def test_every_module_names_its_public_surface() -> None:
    """Each module lists what it promises in `__all__`, and every listed name is there and public.

    The server modules import FastAPI only when the app is built, and the test group installs the `server` extra
    (conftest's stand-in server needs it), so they are held to it too. `__main__` modules run on import: skipped.
    """
    names = package_modules(kimina_verify)
    assert {"kimina_verify.policy", "kimina_verify.server.settings", "kimina_verify.sim.cli"} <= set(names)
    assert not surface_problems(kimina_verify)


def test_one_owner_for_the_lexer_codes() -> None:
    """The header rules and the code rules name the lexer's doubts with the same codes, from one table."""
    from kimina_verify import header, integrity

    # Imported, not copied: both modules hold policy's own table (they do not re-export it).
    assert vars(header)["LEXER_CODES"] is vars(integrity)["LEXER_CODES"] is policy.LEXER_CODES
    assert set(policy.LEXER_CODES.values()) <= set(policy.MESSAGES)


def test_the_old_name_of_integrity_violation_warns_and_is_the_same_class() -> None:
    with pytest.warns(DeprecationWarning, match="use kimina_verify.policy.IntegrityViolation"):
        assert policy.Violation is policy.IntegrityViolation
    with pytest.warns(DeprecationWarning, match="use kimina_verify.IntegrityViolation"):
        assert kimina_verify.Violation is kimina_verify.IntegrityViolation
    assert "Violation" not in policy.__all__ and "Violation" not in kimina_verify.__all__
    with pytest.raises(AttributeError):
        policy.NoSuchName  # noqa: B018
