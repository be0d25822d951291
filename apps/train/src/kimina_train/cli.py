"""Command-line arguments of `kimina-train`: a recipe, Hydra-style overrides and a few launch flags."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Args", "EPILOG", "build_parser", "parse_args"]

EPILOG = """\
examples:
  uv run apps/train --recipe smoke                          verl's trainer for 2 steps on this machine (CPU or GPU)
  uv run apps/train --recipe kimina-rl-1.7b --dry-run       print the plan (add --show-config for the full config)
  uv run apps/train --recipe kimina-rl-1.7b                 8xH100, one node
  uv run apps/train --recipe kimina-rl-1.7b trainer.total_training_steps=100 actor_rollout_ref.actor.optim.lr=1e-6
  uv run apps/train --recipe kimina-rl-1.7b --nnodes 4 --ray-address HEAD_IP:6379

overrides use Hydra syntax: key=value changes a key, +key=value adds one, ~key removes one.
exit codes: 0 done, 1 training failed, 2 bad command line or recipe, 3 preflight failed.
"""


@dataclass(frozen=True)
class Args:
    """What the user asked for on the command line.

    Attributes:
        recipe: A recipe name (a file in `apps/train/recipes/`) or a path to a recipe YAML file.
        overrides: Hydra-style overrides applied on top of the recipe, in order.
        dry_run: Print the plan, then stop.
        show_config: With the dry run, also the resolved config: `-` for standard output, else a file to write.
        check: Run the preflight checklist, then stop.
        nnodes: Nodes of the Ray cluster to train on; None keeps the recipe's value.
        ray_address: Address of a running Ray cluster's head, or None for a local cluster.
        run_dir: Run folder; None means `runs/<experiment_name>`.
        write_generated: Rewrite every recipe's flattened config under `recipes/_generated/`, then stop.
        list_recipes: List the recipes, then stop.
    """

    recipe: str | None
    overrides: tuple[str, ...] = ()
    dry_run: bool = False
    show_config: str | None = None
    check: bool = False
    nnodes: int | None = None
    ray_address: str | None = None
    run_dir: Path | None = None
    write_generated: bool = False
    list_recipes: bool = False


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with help that shows the main commands."""
    parser = argparse.ArgumentParser(
        prog="kimina-train",
        description=(
            "Train a Lean 4 prover with Dr.GRPO on verl 0.9.1 from a recipe: parse, preflight checklist "
            "(GPUs, verifier, data, model, disk, versions), prepare the run folder, launch."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--recipe", metavar="NAME", help="recipe name (see --list) or path to a recipe YAML file")
    parser.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="Hydra-style overrides of the recipe")
    parser.add_argument("--dry-run", action="store_true", help="print the plan; start nothing")
    parser.add_argument(
        "--show-config",
        nargs="?",
        const="-",
        metavar="FILE",
        help="with --dry-run: also the resolved config verl would get, after the plan (or into FILE)",
    )
    parser.add_argument("--check", action="store_true", help="run the preflight checklist and stop")
    parser.add_argument("--nnodes", type=_positive_int, metavar="N", help="nodes in the Ray cluster (trainer.nnodes)")
    parser.add_argument(
        "--ray-address",
        metavar="HOST:PORT",
        default=os.environ.get("RAY_ADDRESS"),
        help="head of a running Ray cluster (default: $RAY_ADDRESS; none starts a local cluster)",
    )
    parser.add_argument("--run-dir", type=Path, metavar="DIR", help="run folder (default: runs/<experiment_name>)")
    parser.add_argument("--list", dest="list_recipes", action="store_true", help="list the recipes and stop")
    parser.add_argument(
        "--write-generated",
        action="store_true",
        help="rewrite the flattened configs in apps/train/recipes/_generated/ and stop",
    )
    return parser


def parse_args(argv: list[str] | None = None) -> Args:
    """Parse the command line; argparse exits with code 2 and a one-line error on bad input."""
    parser = build_parser()
    ns = parser.parse_args(argv)
    if ns.recipe is None and not (ns.write_generated or ns.list_recipes):
        parser.error("--recipe NAME is required (try --list)")
    if ns.show_config is not None and not ns.dry_run:
        parser.error("--show-config goes with --dry-run")
    if ns.nnodes is not None and ns.nnodes > 1 and not ns.ray_address and not (ns.dry_run or ns.check):
        parser.error("--nnodes > 1 needs a Ray cluster: pass --ray-address HOST:PORT or set RAY_ADDRESS")
    return Args(
        recipe=ns.recipe,
        overrides=tuple(ns.overrides),
        dry_run=ns.dry_run,
        show_config=ns.show_config,
        check=ns.check,
        nnodes=ns.nnodes,
        ray_address=ns.ray_address or None,
        run_dir=ns.run_dir,
        write_generated=ns.write_generated,
        list_recipes=ns.list_recipes,
    )
