import re
import tomllib
from pathlib import Path

import kimina_rl
import pytest
from kimina_format.testing import package_modules, surface_problems


def test_version_matches_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert kimina_rl.__version__ == pyproject["project"]["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", kimina_rl.__version__)


def test_ships_type_information() -> None:
    assert (Path(kimina_rl.__file__).parent / "py.typed").is_file()


def test_every_module_names_its_public_surface() -> None:
    """Each module lists what it promises in `__all__`, and every listed name is there.

    The agent loop imports verl (a dependency of kimina-rl, so it is always there; ~10 s on first import).
    """
    names = package_modules(kimina_rl)
    assert "kimina_rl.agent_loop" in names and "kimina_rl.config" in names
    assert not surface_problems(kimina_rl)


def test_the_names_renamed_in_0_4_still_work_and_warn() -> None:
    from kimina_rl.scoring import RewardProblem
    from kimina_verify import VerifierUnavailable

    with pytest.warns(
        DeprecationWarning, match=r"^kimina_rl.Problem is deprecated: use kimina_rl.scoring.RewardProblem"
    ):
        assert kimina_rl.Problem is RewardProblem
    with pytest.warns(DeprecationWarning, match="use kimina_verify.errors.VerifierUnavailable"):
        assert kimina_rl.VerifierUnavailableError is VerifierUnavailable
    assert "Problem" not in kimina_rl.__all__ and "Problem" not in dir(kimina_rl)
    with pytest.raises(AttributeError, match="^module 'kimina_rl' has no attribute 'Nope'$"):
        kimina_rl.Nope  # noqa: B018
