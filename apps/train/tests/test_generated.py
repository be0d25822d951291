from pathlib import Path

from kimina_train.generated import GENERATED_DIR, REGENERATE, stale_generated
from kimina_train.recipe import list_recipes


def test_flattened_configs_are_current() -> None:
    stale = stale_generated()
    assert not stale, f"recipes/_generated/ is stale for {stale}: run `{REGENERATE}` and commit the result"


def test_flattened_configs_hold_no_machine_paths() -> None:
    repo = str(Path(__file__).resolve().parents[3])
    for name in list_recipes():
        text = (GENERATED_DIR / f"{name}.yaml").read_text()
        assert repo not in text and str(Path.home()) not in text, name
        assert text.startswith(f"# GENERATED from apps/train/recipes/{name}.yaml by `{REGENERATE}`")
