"""`kimina-rl`: inspect and export the win-rate history, and print the composed trainer config."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from kimina_format.exit_codes import ExitCode
from rich.console import Console
from rich.table import Table

from kimina_rl.history import WinRate, WinRateHistory, merge_win_rates, write_win_rates

__all__ = ["EMPTY_HISTORY", "build_parser", "main"]

EXIT_OK, EXIT_USAGE = ExitCode.OK, ExitCode.USAGE  # the workspace convention (kimina_format.exit_codes)

EMPTY_HISTORY = (
    "no outcome recorded. The history keeps training rollouts only: rows marked as evaluation data "
    "(extra_info.split val, valid, validation or test, as miniF2F-test rows are) are never recorded, so that "
    "evaluation problems cannot reach the next promptset's win rates."
)

_EPILOG = """\
examples:
  kimina-rl history show runs/history.sqlite --top 20
  kimina-rl history export runs/history-*.sqlite --out win_rates.parquet --min-attempts 8
  kimina-rl config data.max_response_length=4096 trainer.n_gpus_per_node=1
  kimina-rl config --paths
"""


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        prog="kimina-rl",
        description="Win-rate history of RL training rollouts, and the Dr.GRPO trainer config for verl.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)

    history = commands.add_parser("history", help="read the per-problem win-rate history").add_subparsers(
        dest="action", required=True
    )
    files_help = "history files (kimina_rl.history.path); several are added up, e.g. one per node"
    show = history.add_parser("show", help="summary and the most-attempted problems")
    show.add_argument("db", type=Path, nargs="+", help=files_help)
    show.add_argument("--top", type=int, default=10, help="problems to list (default 10)")
    export = history.add_parser("export", help="write rows with rl_data {n_correct_proofs, n_proofs, win_rate}")
    export.add_argument("db", type=Path, nargs="+", help=files_help)
    export.add_argument("--out", type=Path, required=True, help="output .jsonl or .parquet (NuminaMath-LEAN layout)")
    export.add_argument("--min-attempts", type=int, default=1, help="leave out problems tried fewer times")

    config = commands.add_parser("config", help="print the composed verl config (kimina_drgrpo + overrides)")
    config.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. data.train_batch_size=8")
    config.add_argument("--name", default="kimina_drgrpo", help="primary config (a recipe extending the base)")
    config.add_argument("--dir", type=Path, default=None, help="folder holding the primary config")
    config.add_argument("--paths", action="store_true", help="print the config folder and agent-loop YAML instead")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 2 bad usage or input such as a missing file)."""
    args = build_parser().parse_args(argv)
    out, err = Console(), Console(stderr=True)
    try:
        if args.command == "history":
            return _history(args, out, err)
        return _config(args)
    except (FileNotFoundError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        return EXIT_USAGE


def _read(paths: Sequence[Path]) -> list[WinRate]:
    groups = []
    for path in paths:
        if not path.is_file():  # opening would create an empty history
            raise FileNotFoundError(
                f"no history file at {path} (a run writes one only when its kimina_rl.history.path is set)"
            )
        with WinRateHistory(path) as history:
            groups.append(list(history.win_rates()))
    return merge_win_rates(*groups)


def _history(args: argparse.Namespace, out: Console, err: Console) -> int:
    rates = _read(args.db)
    if args.action == "export":
        written = write_win_rates(rates, args.out, min_attempts=args.min_attempts)
        err.print(f"wrote {written} problems to {args.out}", highlight=False)
        return EXIT_OK
    if not rates:
        out.print(f"{', '.join(map(str, args.db))}: {EMPTY_HISTORY}", highlight=False)
        return EXIT_OK
    attempts = sum(rate.n_proofs for rate in rates)
    solved = sum(rate.n_correct_proofs for rate in rates)
    mastered = sum(rate.win_rate > 0.5 for rate in rates)
    out.print(
        f"{len(rates)} problems, {attempts} attempts, {solved} proofs "
        f"({solved / attempts if attempts else 0:.1%}); {mastered} problems above win rate 0.5",
        highlight=False,
    )
    table = Table("problem", "source", "attempts", "proofs", "win rate")
    for rate in sorted(rates, key=lambda r: (-r.n_proofs, r.problem_id))[: args.top]:
        table.add_row(
            rate.problem_id, rate.data_source, str(rate.n_proofs), str(rate.n_correct_proofs), f"{rate.win_rate:.3f}"
        )
    out.print(table)
    return EXIT_OK


def _config(args: argparse.Namespace) -> int:
    from kimina_rl.trainer_config import agent_loop_config_path, compose_config, config_dir

    if args.paths:
        sys.stdout.write(f"config_dir: {config_dir()}\nagent_loop_config_path: {agent_loop_config_path()}\n")
        return EXIT_OK
    from hydra.errors import HydraException
    from omegaconf import OmegaConf

    try:
        cfg = compose_config(args.overrides, config_name=args.name, config_dir_path=args.dir)
    except HydraException as exc:
        raise ValueError(str(exc).splitlines()[0]) from exc
    sys.stdout.write(OmegaConf.to_yaml(cfg, resolve=True))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
