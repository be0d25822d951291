import re
import tomllib
from pathlib import Path

import kimina_eval


def test_version_matches_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert kimina_eval.__version__ == pyproject["project"]["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", kimina_eval.__version__)


def test_ships_type_information() -> None:
    assert (Path(kimina_eval.__file__).parent / "py.typed").is_file()
