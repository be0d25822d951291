"""Every command line follows one exit-code convention (`kimina_format.exit_codes`, the root README's table): bad
input exits 2 with one line on stderr, as argparse does for bad usage."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest
from kimina_format.exit_codes import ExitCode

ROOT = Path(__file__).resolve().parents[1]
MISSING = "/nonexistent/kimina/input.jsonl"


def kimina_format_main(argv: list[str]) -> int:
    from kimina_format.cli import main

    return main(argv)


def kimina_verify_main(argv: list[str]) -> int:
    from kimina_verify.cli import main

    return main(argv)


def serve_main(argv: list[str]) -> int:
    from kimina_verify.server.cli import main

    return main(argv)


def sim_main(argv: list[str]) -> int:
    from kimina_verify.sim.cli import main

    return main(argv)


def kimina_data_main(argv: list[str]) -> int:
    from kimina_data.cli import main

    return main(argv)


def kimina_eval_main(argv: list[str]) -> int:
    from kimina_eval.cli import main

    return main(argv)


def kimina_rl_main(argv: list[str]) -> int:
    from kimina_rl.cli import main

    return main(argv)


def kimina_train_main(argv: list[str]) -> int:
    from kimina_train.main import main

    return main(argv)


def kimina_api_main(argv: list[str]) -> int:
    from kimina_api.main import main

    return main(argv)


# (command, entry point, arguments that are bad input, not bad usage)
BAD_INPUT: list[tuple[str, Callable[[list[str]], int], list[str]]] = [
    ("kimina-format check", kimina_format_main, ["check", MISSING]),
    ("kimina-verify lint", kimina_verify_main, ["lint", MISSING]),
    ("kimina-verify serve", serve_main, ["--repl-cmd", "/nonexistent/kimina/repl"]),
    ("kimina-data build", kimina_data_main, ["build", "--source", MISSING, "--out", "{tmp}/out", "--no-variants"]),
    ("kimina-eval score", kimina_eval_main, ["score", MISSING]),
    ("kimina-rl history", kimina_rl_main, ["history", "show", MISSING]),
    ("kimina-train", kimina_train_main, ["--recipe", "no-such-recipe", "--dry-run"]),
    ("kimina-api", kimina_api_main, ["--port", "0"]),
]
USAGE: list[tuple[str, Callable[[list[str]], int]]] = [
    ("kimina-format", kimina_format_main),
    ("kimina-verify", kimina_verify_main),
    ("kimina-verify serve", serve_main),
    ("lean-repl-sim", sim_main),
    ("kimina-data", kimina_data_main),
    ("kimina-eval", kimina_eval_main),
    ("kimina-rl", kimina_rl_main),
    ("kimina-train", kimina_train_main),
    ("kimina-api", kimina_api_main),
]


@pytest.mark.parametrize(("command", "main", "argv"), BAD_INPUT, ids=[c for c, _, _ in BAD_INPUT])
def test_bad_input_exits_2_with_one_line(
    command: str, main: Callable[[list[str]], int], argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE, err
    assert "Traceback" not in err and "error" in err.lower()


@pytest.mark.parametrize(("command", "main"), USAGE, ids=[c for c, _ in USAGE])
def test_an_unknown_flag_exits_2(command: str, main: Callable[[list[str]], int]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--no-such-flag-anywhere"])
    assert exit_info.value.code == ExitCode.USAGE


def test_every_cli_uses_the_shared_codes() -> None:
    """No command line spells its own exit codes: each main module takes them from `kimina_format.exit_codes`."""
    mains = [
        "packages/kimina-format/src/kimina_format/cli.py",
        "packages/kimina-verify/src/kimina_verify/cli.py",
        "packages/kimina-verify/src/kimina_verify/server/cli.py",
        "packages/kimina-data/src/kimina_data/cli.py",
        "packages/kimina-eval/src/kimina_eval/cli.py",
        "packages/kimina-rl/src/kimina_rl/cli.py",
        "apps/train/src/kimina_train/main.py",
        "apps/api/src/kimina_api/main.py",
    ]
    for relative in mains:
        tree = ast.parse((ROOT / relative).read_text())
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "kimina_format.exit_codes"
            for alias in node.names
        }
        assert "ExitCode" in imported, relative
        literal_returns = [
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Return)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, int)
        ]
        assert not literal_returns, f"{relative}: exit codes as literals on lines {literal_returns}"
