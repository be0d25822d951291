import importlib
import pkgutil
import re
import tomllib
from pathlib import Path

import kimina_eval
import pytest
from kimina_eval import runner
from kimina_verify import VerifierUnavailable


def test_version_matches_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert kimina_eval.__version__ == pyproject["project"]["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", kimina_eval.__version__)


def test_ships_type_information() -> None:
    assert (Path(kimina_eval.__file__).parent / "py.typed").is_file()


def test_every_module_names_its_public_surface() -> None:
    """Each module lists what it promises in `__all__`, and every listed name is there."""
    names = [m.name for m in pkgutil.walk_packages(kimina_eval.__path__, "kimina_eval.")]
    assert "kimina_eval.run_folder" in names and "kimina_eval.search.runner" in names
    for name in ["kimina_eval", *names]:
        module = importlib.import_module(name)
        listed = getattr(module, "__all__", None)
        assert listed is not None, f"{name} has no __all__"
        missing = [n for n in listed if not hasattr(module, n)]
        assert not missing, f"{name}.__all__ names what it lacks: {missing}"
        assert not [n for n in listed if n.startswith("_") and n != "__version__"], name


def test_the_old_name_of_verifier_unavailable_warns_and_is_the_same_class() -> None:
    with pytest.warns(DeprecationWarning, match="use kimina_verify.VerifierUnavailable"):
        assert runner.VerificationUnavailable is VerifierUnavailable
    assert "VerificationUnavailable" not in runner.__all__
