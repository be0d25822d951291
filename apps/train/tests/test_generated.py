from pathlib import Path

from kimina_train.generated import GENERATED_DIR, REGENERATE, stale_generated
from kimina_train.recipe import list_recipes


def test_flattened_configs_are_current() -> None:
    stale = stale_generated()
    assert not stale, f"recipes/_generated/ is stale for {stale}: run `{REGENERATE}` and commit the result"


def test_flattened_configs_hold_no_machine_paths_and_say_they_ignore_overrides() -> None:
    repo = str(Path(__file__).resolve().parents[3])
    for name in [*list_recipes(), "smoke.cpu"]:
        text = (GENERATED_DIR / f"{name}.yaml").read_text()
        assert repo not in text and str(Path.home()) not in text, name
        recipe = name.removesuffix(".cpu")
        assert text.startswith(f"# GENERATED from apps/train/recipes/{recipe}.yaml by `{REGENERATE}`")
        header = " ".join(line.lstrip("# ") for line in text.splitlines()[:9] if line.startswith("#"))
        assert "a run started from this file (main_ppo --config-path ...) ignores an override" in header
        assert f"uv run apps/train --recipe {recipe} [overrides]" in header


def test_the_cpu_composition_of_the_smoke_is_kept_too() -> None:
    text = (GENERATED_DIR / "smoke.cpu.yaml").read_text()
    assert "for a machine without GPU" in text.splitlines()[1] and "name: hf" in text
