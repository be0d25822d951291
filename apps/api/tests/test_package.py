import re
import tomllib
from pathlib import Path

import kimina_api
from kimina_format.testing import package_modules, surface_problems


def test_version_matches_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert kimina_api.__version__ == pyproject["project"]["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", kimina_api.__version__)


def test_ships_type_information() -> None:
    assert (Path(kimina_api.__file__).parent / "py.typed").is_file()


def test_every_module_names_its_public_surface() -> None:
    """Each module lists what it promises in `__all__`, and every listed name is there."""
    names = package_modules(kimina_api)
    assert "kimina_api.prover" in names and "kimina_api.settings" in names
    assert not surface_problems(kimina_api)
