"""Every check the project runs, as nox sessions: `uv run nox` runs them all, `uv run nox -l` lists them.

Each session syncs its own environment from `uv.lock` with only what it needs, so a package that imports a sibling it
does not declare fails its own `tests` session instead of passing in a shared environment.
"""

from __future__ import annotations

import glob
import shutil
import sys
import tempfile
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv"
nox.options.reuse_venv = "yes"

# Distribution name -> folder. Test sessions are parametrised over this.
MEMBERS = {
    "kimina-format": "packages/kimina-format",
    "kimina-verify": "packages/kimina-verify",
    "kimina-data": "packages/kimina-data",
    "kimina-rl": "packages/kimina-rl",
    "kimina-eval": "packages/kimina-eval",
    "kimina-train": "apps/train",
    "kimina-api": "apps/api",
}
SOURCES = sorted(glob.glob("packages/*/src") + glob.glob("apps/*/src"))


def uv_sync(session: nox.Session, *args: str) -> None:
    """Sync this session's virtualenv from the lock, installing exactly what `args` select."""
    session.run_install(
        "uv",
        "sync",
        "--locked",
        "--no-default-groups",
        *args,
        env={"UV_PROJECT_ENVIRONMENT": session.virtualenv.location},
        external=True,
    )


@nox.session
def lint(session: nox.Session) -> None:
    """Ruff lint and format check, and a lock that matches every pyproject.toml."""
    uv_sync(session, "--only-group", "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("uv", "lock", "--check", external=True)


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict over every package and app."""
    uv_sync(session, "--all-packages", "--group", "lint")
    session.run("mypy", *SOURCES)
    # kimina-format promises Python 3.10: check it against 3.10's standard library too.
    session.run("mypy", "--python-version", "3.10", "packages/kimina-format/src")


@nox.session
@nox.parametrize("package", list(MEMBERS))
def tests(session: nox.Session, package: str) -> None:
    """One package's tests, in an environment holding that package, its dependencies and the test tools only."""
    uv_sync(session, "--package", package, "--group", "test")
    session.run("pytest", f"{MEMBERS[package]}/tests", *session.posargs)


@nox.session
def e2e(session: nox.Session) -> None:
    """Cross-package tests (the root tests/ folder and every `cross`-marked test), with every package installed."""
    uv_sync(session, "--all-packages", "--group", "test")
    # Exit code 5 means no test was collected: acceptable here only, where the folder may hold none for a filter.
    session.run("pytest", "tests", *session.posargs, success_codes=[0, 5])
    # Package tests marked `cross` check compatibility with a package their own does not depend on (kimina-data's
    # parquet read by verl, for instance); their package's session skips them, so they run here.
    cross = [f"{folder}/tests" for folder in MEMBERS.values()]
    session.run("pytest", "-m", "cross", *cross, *session.posargs, success_codes=[0, 5])


@nox.session
def isolation(session: nox.Session) -> None:
    """Build every wheel, install each alone into a fresh venv and import it; kimina-format must pull in nothing."""
    work = Path(tempfile.mkdtemp(prefix="kimina-isolation-"))
    dist = work / "dist"
    session.run("uv", "build", "--all-packages", "--wheel", "--out-dir", str(dist), "--quiet", external=True)
    # Third-party versions come from the lock, so these installs reuse uv's cache instead of resolving anew.
    constraints = work / "constraints.txt"
    session.run(
        "uv", "export", "--locked", "--all-packages", "--no-dev", "--no-hashes", "--no-emit-workspace",
        "--no-header", "--quiet", "--output-file", str(constraints), external=True,
    )  # fmt: skip
    for dist_name in MEMBERS:
        module = dist_name.replace("-", "_")
        venv = work / dist_name
        (wheel,) = dist.glob(f"{module}-*.whl")
        session.run("uv", "venv", "--quiet", "--python", sys.executable, str(venv), external=True)
        python = str(venv / "bin" / "python")
        session.run(
            "uv", "pip", "install", "--quiet", "--python", python, "--find-links", str(dist),
            "--constraints", str(constraints), str(wheel), external=True,
        )  # fmt: skip
        session.run(python, "-c", f"import {module}; print({module}.__name__, {module}.__version__)", external=True)
        if dist_name == "kimina-format":
            listing = "import importlib.metadata as m; print(sorted(d.metadata['Name'] for d in m.distributions()))"
            names = str(session.run(python, "-c", listing, external=True, silent=True)).strip()
            if names != "['kimina-format']":
                session.error(f"kimina-format must install alone, but the venv holds: {names}")
        shutil.rmtree(venv)
    shutil.rmtree(work)
