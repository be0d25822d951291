import ast
import importlib
import re
from pathlib import Path

import kimina_format
from kimina_format.testing import package_modules, surface_problems


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


def test_every_module_names_its_public_surface() -> None:
    """Each module lists what it promises in `__all__`, and every listed name is there."""
    names = package_modules(kimina_format)
    assert "kimina_format.lean_lexer" in names and "kimina_format.testing" in names
    assert not surface_problems(kimina_format)


def test_what_the_package_imports_from_its_modules_is_listed() -> None:
    """A `from kimina_format.x import y` in the package's code, tests or benchmarks takes only what x lists."""
    root = Path(__file__).parents[1]
    modules = set(package_modules(kimina_format))
    unlisted = []
    for path in sorted(p for folder in ("src", "tests", "bench") for p in (root / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in modules and node.module != "kimina_format":
                listed = importlib.import_module(node.module).__all__
                unlisted += [
                    f"{path.relative_to(root)}: {node.module}.{a.name}" for a in node.names if a.name not in listed
                ]
    assert not unlisted, unlisted


def test_importing_pulls_in_nothing_heavy() -> None:
    import subprocess
    import sys

    code = "import sys, kimina_format; print(sorted(m for m in sys.modules if m.split('.')[0] in {'torch', 'numpy'}))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert result.stdout.strip() == "[]"


def test_the_readme_gives_every_threshold_its_default_and_reason() -> None:
    # The README's table is where a user learns why each default is what it is: a setting added without a row, or a
    # default changed without its row, fails here.
    from dataclasses import fields

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Default thresholds and why") : readme.index("### Upstream's checker")]
    rows = {m[1]: (m[2], m[3]) for m in re.finditer(r"^\| `(\w+)` \| ([^|]+) \| ([^|]+) \|$", table, re.MULTILINE)}
    for field in fields(kimina_format.FormatConfig):
        assert field.name in rows, f"{field.name} has no row in the README's threshold table"
        default, reason = rows[field.name]
        written = re.sub(r"[`,_ ]", "", default)
        assert written == re.sub(r"[,_ ]", "", str(field.default)).replace("'", '"'), (field.name, default)
        assert len(reason.split()) >= 5, f"{field.name}: say why"
