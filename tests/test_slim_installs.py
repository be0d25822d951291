"""Slim cores: what a reward worker or a metrics user installs and imports, read from the lock and checked in a
subprocess where the heavy stacks cannot be imported."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

WEB_FRAMEWORKS = {
    "fastapi", "starlette", "uvicorn", "flask", "django", "aiohttp", "tornado", "sanic", "quart", "hypercorn",
    "gunicorn", "werkzeug", "litestar", "falcon", "bottle", "cherrypy",
}  # fmt: skip
ML_STACKS = {"torch", "transformers", "tokenizers", "vllm"}


def locked_closure(package: str, *extras: str) -> set[str]:
    """The distributions `pip install package[extras]` gets, from uv.lock (offline: no registry is asked)."""
    if shutil.which("uv") is None:
        pytest.skip("uv is not on PATH")
    command = ["uv", "export", "--frozen", "--package", package, "--no-default-groups", "--no-hashes"]
    command += ["--no-emit-workspace", "--no-header", "--no-annotate"]
    for extra in extras:
        command += ["--extra", extra]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return {re.split(r"[=<>!~; @\[]", line, maxsplit=1)[0].lower() for line in out.splitlines() if line.strip()}


def test_kimina_verify_without_the_server_extra_installs_no_web_framework() -> None:
    closure = locked_closure("kimina-verify")
    assert "httpx" in closure and "kimina-client" in closure  # the client is there
    assert not closure & (WEB_FRAMEWORKS | {"psutil"}), sorted(closure & (WEB_FRAMEWORKS | {"psutil"}))
    # ... and the extra brings the server's stack, so the check above can fail.
    assert {"fastapi", "uvicorn", "psutil"} <= locked_closure("kimina-verify", "server")


def test_kimina_eval_without_the_transformers_extra_installs_no_torch() -> None:
    assert not locked_closure("kimina-eval") & ML_STACKS
    assert {"torch", "transformers", "tokenizers"} <= locked_closure("kimina-eval", "transformers")


def run_without(blocked: set[str], code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter where importing any of `blocked` (top-level names) fails."""
    prelude = textwrap.dedent(
        f"""
        import sys

        class _Blocked:
            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] in {sorted(blocked)!r}:
                    raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)", name=name)
                return None

        sys.meta_path.insert(0, _Blocked())
        """
    )
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True, timeout=300
    )


def test_kimina_eval_metrics_and_report_import_without_torch() -> None:
    result = run_without(
        ML_STACKS,
        """
        import kimina_eval
        import kimina_eval.metrics, kimina_eval.report, kimina_eval.summary, kimina_eval.scoring
        from kimina_eval import pass_at_k, best_at_k
        assert abs(pass_at_k(10, 3, 1) - 0.3) < 1e-12
        assert not {"torch", "transformers"} & set(sys.modules)
        try:
            kimina_eval.make_engine("transformers", ".")
        except ImportError as error:
            print(error)
        """,
    )
    assert result.returncode == 0, result.stderr
    assert "pip install 'kimina-eval[transformers]'" in result.stdout


def test_the_verification_client_imports_without_the_web_stack() -> None:
    result = run_without(
        WEB_FRAMEWORKS | {"psutil"},
        """
        import kimina_verify, kimina_verify.client, kimina_verify.cache, kimina_verify.sim.cli
        from kimina_verify import Verifier, VerifyItem, verify_sync, check_integrity
        from kimina_verify.cli import main
        sys.exit(main(["serve", "--repl-cmd", "lean-repl-sim"]))
        """,
    )
    # `kimina-verify serve` without the extra: one line naming both install commands, bad-usage exit code.
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    message = " ".join(result.stderr.split())
    assert "pip install 'kimina-verify[server]'" in message and "uv sync --all-packages --extra server" in message


def test_production_code_imports_no_testing_module() -> None:
    """Test helpers are not a runtime dependency (the tiny model lives in `kimina_eval.tiny_model`)."""
    offenders = []
    for path in [*ROOT.glob("packages/*/src/**/*.py"), *ROOT.glob("apps/*/src/**/*.py")]:
        if path.stem == "testing":
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[-1] == "testing"]
    assert not offenders, offenders
