"""`kimina-train`: parse the recipe, run the preflight checklist, prepare the run folder, launch."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console
from rich.logging import RichHandler
from rich.panel import Panel

from kimina_train.cli import Args, parse_args
from kimina_train.dataprep import DataBuildError
from kimina_train.generated import REGENERATE, write_generated
from kimina_train.launch import run_verl
from kimina_train.plan import make_plan, render_plan
from kimina_train.preflight import Gpu, failed, probe_gpus, render, run_preflight
from kimina_train.prepare import prepare
from kimina_train.recipe import Recipe, RecipeError, list_recipes, load_recipe, with_values
from kimina_train.runfolder import record_launch
from kimina_train.verifier_service import SIMULATED_WARNING, VerifierStartError, running_verifier

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_PREFLIGHT = 0, 1, 2, 3

console = Console(stderr=True)


def main(argv: list[str] | None = None) -> int:
    """Run the app; returns the exit code (0 done, 1 training failed, 2 bad input, 3 preflight failed)."""
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", handlers=[RichHandler(console=console)])
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request drowns the checklist
    if args.list_recipes or args.write_generated:
        return _maintenance(args)

    # 1. Parse: compose the recipe with its overrides.
    try:
        recipe = load_recipe(args.recipe or "", _overrides(args), nnodes=args.nnodes)
    except RecipeError as exc:
        console.print(f"[bold red]error:[/] {exc}")
        return EXIT_USAGE
    gpus = probe_gpus()
    rehearse = recipe.settings.rehearsal is not None and not gpus
    if args.dry_run:
        from omegaconf import OmegaConf

        sys.stdout.write(OmegaConf.to_yaml(recipe.config, resolve=True))
        render_plan(make_plan(recipe, rehearse=rehearse, ray_address=args.ray_address), console)
        return EXIT_OK

    try:
        with _verifier_for(recipe) as ready:
            return _run(args, ready, gpus=gpus, rehearse=rehearse)
    except VerifierStartError as exc:
        console.print(f"[bold red]error:[/] {exc}")
        return EXIT_PREFLIGHT


def _run(args: Args, recipe: Recipe, *, gpus: list[Gpu], rehearse: bool) -> int:
    """Preflight, prepare and launch `recipe` (its verifier already running when the run starts one)."""
    # 2. Preflight: every check, then stop on any failure.
    results = run_preflight(recipe, gpus=[] if rehearse else gpus, rehearse=rehearse, ray_address=args.ray_address)
    render(results, console, title=f"Preflight: {recipe.name}")
    if failed(results):
        console.print(f"[bold red]preflight failed[/]: {len(failed(results))} check(s); nothing was started")
        return EXIT_PREFLIGHT
    if args.check:
        return EXIT_OK

    # 3. Prepare: run folder, missing data and model, the config verl reads.
    try:
        run = prepare(recipe, results)
    except DataBuildError as exc:
        console.print(f"[bold red]prepare failed:[/] {exc}")
        return EXIT_FAILED
    record_launch(run, recipe=recipe.name, overrides=recipe.overrides, mode="rehearsal" if rehearse else "verl")
    console.print(f"run folder: [bold]{run.path}[/]")

    # 4. Launch.
    if rehearse:
        from kimina_train.rehearsal import rehearse_one_step

        return EXIT_OK if rehearse_one_step(recipe, run, console) else EXIT_FAILED
    code = run_verl(run, ray_address=args.ray_address)
    return EXIT_OK if code == 0 else EXIT_FAILED


def _overrides(args: Args) -> list[str]:
    return [*args.overrides, *([f"kimina.run_dir={args.run_dir}"] if args.run_dir else [])]


@contextlib.contextmanager
def _verifier_for(recipe: Recipe) -> Iterator[Recipe]:
    """Yield `recipe` as is, or pointed at a `kimina-verify serve` started for the run when the recipe asks."""
    if not recipe.settings.verifier.start:
        yield recipe
        return
    with running_verifier(Path(recipe.settings.run_dir)) as server:
        if server.simulated:
            console.print(Panel(SIMULATED_WARNING, title="SIMULATED LEAN", style="bold yellow"))
        else:
            console.print(f"verifier: kimina-verify serve on a real Lean workspace at {server.url}")
        yield with_values(recipe, {"kimina_rl.verifier.url": server.url})


def _maintenance(args: Args) -> int:
    if args.list_recipes:
        for name in list_recipes():
            console.print(f"{name}: {load_recipe(name).settings.description}")
    if args.write_generated:
        for path in write_generated():
            console.print(f"wrote {path}")
        console.print(f"(regenerate with `{REGENERATE}` after changing a recipe or kimina-rl's base config)")
    return EXIT_OK
