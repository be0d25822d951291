"""`kimina-train`: parse the recipe, run the preflight checklist, prepare the run folder, launch verl, report."""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from kimina_format.exit_codes import ExitCode
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
from kimina_train.recipe import Recipe, RecipeError, list_recipes, load_recipe, on_cpu, with_values
from kimina_train.report import report_launch
from kimina_train.runfolder import record_launch
from kimina_train.verifier_service import (
    SIMULATED_WARNING,
    VerifierProcess,
    VerifierStartError,
    checks_served,
    running_verifier,
)

__all__ = ["main"]

# The workspace convention (kimina_format.exit_codes): a failed preflight means the run cannot start.
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_PREFLIGHT = ExitCode.OK, ExitCode.FAILED, ExitCode.USAGE, ExitCode.UNAVAILABLE

console = Console(stderr=True)


def main(argv: list[str] | None = None) -> int:
    """Run the app; returns the exit code (0 done, 1 training failed, 2 bad input, 3 preflight failed)."""
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", handlers=[RichHandler(console=console)])
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request drowns the checklist
    if args.list_recipes or args.write_generated:
        return _maintenance(args)

    # 1. Parse: compose the recipe with its overrides; without a GPU, with its CPU overrides too.
    gpus = probe_gpus()
    try:
        recipe = load_recipe(args.recipe or "", _overrides(args), nnodes=args.nnodes)
        if not gpus and recipe.settings.cpu is not None:
            recipe = on_cpu(recipe)
    except RecipeError as exc:
        console.print(f"[bold red]error:[/] {exc}")
        return EXIT_USAGE
    if args.dry_run:
        return _dry_run(args, recipe)

    try:
        with _verifier_for(recipe) as (ready, server):
            return _run(args, ready, gpus=gpus, server=server)
    except VerifierStartError as exc:
        console.print(f"[bold red]error:[/] {exc}")
        return EXIT_PREFLIGHT


def _run(args: Args, recipe: Recipe, *, gpus: list[Gpu], server: VerifierProcess | None) -> int:
    """Preflight, prepare, launch and report `recipe` (its verifier already running when the run starts one)."""
    # 2. Preflight: every check, then stop on any failure.
    results = run_preflight(recipe, gpus=gpus, ray_address=args.ray_address)
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
    record_launch(run, recipe=recipe.name, overrides=recipe.overrides, mode="verl-cpu" if recipe.cpu else "verl")
    console.print(f"run folder: [bold]{run.path}[/]")

    # 4. Launch verl's main_ppo.
    started = time.time()
    before = _checks(server)
    code = run_verl(run, ray_address=args.ray_address, cpu=recipe.cpu)

    # 5. Report what it left.
    after = _checks(server)
    checks = {k: v - before.get(k, 0) for k, v in after.items()} if before is not None and after is not None else None
    report_launch(recipe, run, console, started=started, verifier_checks=checks)
    if code != 0:
        console.print(f"[bold red]verl exited with code {code}[/]; its output is in {run.log}")
    return EXIT_OK if code == 0 else EXIT_FAILED


def _dry_run(args: Args, recipe: Recipe) -> int:
    """The plan; with `--show-config`, then the resolved config (to standard output or a file)."""
    from omegaconf import OmegaConf

    render_plan(make_plan(recipe, ray_address=args.ray_address), console)
    text = OmegaConf.to_yaml(recipe.config, resolve=True)
    if args.show_config == "-":
        sys.stdout.write(text)
    elif args.show_config:
        Path(args.show_config).write_text(text)
        console.print(f"wrote the resolved config to {args.show_config}")
    else:
        console.print("[dim]the resolved config verl would get: add --show-config (or --show-config FILE)[/]")
    return EXIT_OK


def _checks(server: VerifierProcess | None) -> dict[str, int] | None:
    if server is None:
        return None
    try:
        return checks_served(server.url)
    except Exception as exc:  # httpx raises several types; the report then says nothing about the verifier
        logging.getLogger(__name__).warning("could not read %s/metrics: %s", server.url, exc)
        return None


def _overrides(args: Args) -> list[str]:
    return [*args.overrides, *([f"kimina.run_dir={args.run_dir}"] if args.run_dir else [])]


@contextlib.contextmanager
def _verifier_for(recipe: Recipe) -> Iterator[tuple[Recipe, VerifierProcess | None]]:
    """Yield `recipe` as is, or pointed at a `kimina-verify serve` started for the run when the recipe asks."""
    if not recipe.settings.verifier.start:
        yield recipe, None
        return
    with running_verifier(Path(recipe.settings.run_dir)) as server:
        if server.simulated:
            console.print(Panel(SIMULATED_WARNING, title="SIMULATED LEAN", style="bold yellow"))
        else:
            console.print(f"verifier: kimina-verify serve on a real Lean workspace at {server.url}")
        yield with_values(recipe, {"kimina_rl.verifier.endpoint.url": server.url}), server


def _maintenance(args: Args) -> int:
    if args.list_recipes:
        for name in list_recipes():
            console.print(f"{name}: {load_recipe(name).settings.description}")
    if args.write_generated:
        for path in write_generated():
            console.print(f"wrote {path}")
        console.print(f"(regenerate with `{REGENERATE}` after changing a recipe or kimina-rl's base config)")
    return EXIT_OK
