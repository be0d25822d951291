import re
import tomllib
from pathlib import Path

import kimina_train
from kimina_format.testing import package_modules, surface_problems


def test_version_matches_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert kimina_train.__version__ == pyproject["project"]["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", kimina_train.__version__)


def test_ships_type_information() -> None:
    assert (Path(kimina_train.__file__).parent / "py.typed").is_file()


def test_ships_the_smoke_reference_completions_unchanged(data_dir: Path) -> None:
    from kimina_train.references import REFERENCE_FILE

    assert REFERENCE_FILE.read_bytes() == (data_dir / "kimina_completions.jsonl").read_bytes()


def test_every_module_names_its_public_surface() -> None:
    """Each module lists what it promises in `__all__`, and every listed name is there.

    `__main__` runs the CLI, so it is not imported. The CPU plugin's modules import verl (a dependency of
    kimina-rl, always installed with kimina-train); the plugin itself stays inert unless `VERL_PLATFORM=cpu`.
    """
    names = package_modules(kimina_train)
    assert "kimina_train.recipe" in names and "kimina_train.verl_cpu.registration" in names
    assert not surface_problems(kimina_train)
