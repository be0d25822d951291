import re
from pathlib import Path

import kimina_format
import tomllib


def test_version_matches_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert kimina_format.__version__ == pyproject["project"]["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", kimina_format.__version__)


def test_ships_type_information() -> None:
    assert (Path(kimina_format.__file__).parent / "py.typed").is_file()
