import re
from pathlib import Path

import kimina_format


def test_version_matches_pyproject() -> None:
    # A regex, not tomllib, so the tests also run on Python 3.10, which the package supports.
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    declared = re.search(r'^version = "([^"]+)"', pyproject, flags=re.MULTILINE)
    assert declared is not None
    assert kimina_format.__version__ == declared.group(1)
    assert re.fullmatch(r"\d+\.\d+\.\d+", kimina_format.__version__)


def test_ships_type_information() -> None:
    assert (Path(kimina_format.__file__).parent / "py.typed").is_file()


def test_public_names_are_exported() -> None:
    for name in kimina_format.__all__:
        assert hasattr(kimina_format, name), name


def test_importing_pulls_in_nothing_heavy() -> None:
    import subprocess
    import sys

    code = "import sys, kimina_format; print(sorted(m for m in sys.modules if m.split('.')[0] in {'torch', 'numpy'}))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert result.stdout.strip() == "[]"
