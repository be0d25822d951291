import importlib
import pkgutil
import re
import tomllib
from pathlib import Path

import kimina_data


def test_version_matches_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert kimina_data.__version__ == pyproject["project"]["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", kimina_data.__version__)


def test_ships_type_information() -> None:
    assert (Path(kimina_data.__file__).parent / "py.typed").is_file()


def test_every_module_names_its_public_surface() -> None:
    """Each module lists what it promises in `__all__`, and every listed name is there."""
    names = [
        m.name for m in pkgutil.walk_packages(kimina_data.__path__, "kimina_data.") if not m.name.endswith("__main__")
    ]
    assert "kimina_data.cli" in names and "kimina_data.variants.prompt" in names
    for name in ["kimina_data", *names]:
        module = importlib.import_module(name)
        listed = getattr(module, "__all__", None)
        assert listed is not None, f"{name} has no __all__"
        missing = [n for n in listed if not hasattr(module, n)]
        assert not missing, f"{name}.__all__ names what it lacks: {missing}"
        assert not [n for n in listed if n.startswith("_") and n != "__version__"], name
