import re
import tomllib
from pathlib import Path

import kimina_train


def test_version_matches_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert kimina_train.__version__ == pyproject["project"]["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", kimina_train.__version__)


def test_ships_type_information() -> None:
    assert (Path(kimina_train.__file__).parent / "py.typed").is_file()


def test_ships_the_smoke_reference_completions_unchanged(data_dir: Path) -> None:
    from kimina_train.references import REFERENCE_FILE

    assert REFERENCE_FILE.read_bytes() == (data_dir / "kimina_completions.jsonl").read_bytes()
