import re
import tomllib
from pathlib import Path

import kimina_eval
import pytest
from kimina_eval import runner
from kimina_format.testing import package_modules, surface_problems
from kimina_verify import VerifierUnavailable


def test_version_matches_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert kimina_eval.__version__ == pyproject["project"]["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", kimina_eval.__version__)


def test_ships_type_information() -> None:
    assert (Path(kimina_eval.__file__).parent / "py.typed").is_file()


def test_every_module_names_its_public_surface() -> None:
    """Each module lists what it promises in `__all__`, and every listed name is there."""
    names = package_modules(kimina_eval)
    assert "kimina_eval.run_folder" in names and "kimina_eval.search.runner" in names
    assert not surface_problems(kimina_eval)


def test_the_old_name_of_verifier_unavailable_warns_and_is_the_same_class() -> None:
    with pytest.warns(DeprecationWarning, match="use kimina_verify.VerifierUnavailable"):
        assert runner.VerificationUnavailable is VerifierUnavailable
    assert "VerificationUnavailable" not in runner.__all__
