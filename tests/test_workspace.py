"""The workspace's own contract: each member declares what it imports, pins siblings by range, and documents itself."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MEMBER_DIRS = sorted([*ROOT.glob("packages/*/pyproject.toml"), *ROOT.glob("apps/*/pyproject.toml")])
MEMBERS = {tomllib.loads(p.read_text())["project"]["name"]: p.parent for p in MEMBER_DIRS}
MODULE_TO_DIST = {name.replace("-", "_"): name for name in MEMBERS}


def requirement_name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower()


def imported_siblings(package_dir: Path, own_module: str) -> dict[str, str]:
    """Sibling distributions imported anywhere in a member's source, mapped to one file that imports each."""
    found: dict[str, str] = {}
    for path in (package_dir / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top in MODULE_TO_DIST and top != own_module:
                    found.setdefault(MODULE_TO_DIST[top], str(path.relative_to(ROOT)))
    return found


def test_every_member_is_found() -> None:
    assert set(MEMBERS) == {
        "kimina-format", "kimina-verify", "kimina-data", "kimina-rl", "kimina-eval", "kimina-train", "kimina-api",
    }  # fmt: skip


@pytest.mark.parametrize("dist", sorted(MEMBERS))
def test_sibling_imports_are_declared(dist: str) -> None:
    project = tomllib.loads((MEMBERS[dist] / "pyproject.toml").read_text())["project"]
    declared = {requirement_name(r) for r in project.get("dependencies", [])}
    missing = {
        sibling: where
        for sibling, where in imported_siblings(MEMBERS[dist], dist.replace("-", "_")).items()
        if sibling not in declared
    }
    assert not missing, f"{dist} imports siblings it does not declare: {missing}"


@pytest.mark.parametrize("dist", sorted(MEMBERS))
def test_siblings_are_pinned_by_range(dist: str) -> None:
    project = tomllib.loads((MEMBERS[dist] / "pyproject.toml").read_text())["project"]
    for requirement in project.get("dependencies", []):
        if requirement_name(requirement) in MEMBERS:
            assert "==" not in requirement, f"{dist}: pin siblings with a range, not {requirement!r}"


def test_kimina_format_has_no_dependencies() -> None:
    project = tomllib.loads((MEMBERS["kimina-format"] / "pyproject.toml").read_text())["project"]
    assert project["dependencies"] == []
    assert project.get("optional-dependencies", {}) == {}


@pytest.mark.parametrize("dist", sorted(MEMBERS))
def test_member_documents_itself(dist: str) -> None:
    folder = MEMBERS[dist]
    version = tomllib.loads((folder / "pyproject.toml").read_text())["project"]["version"]
    changelog = (folder / "CHANGELOG.md").read_text()
    assert re.search(rf"^## {re.escape(version)}\b", changelog, re.MULTILINE), (
        f"{dist}: no CHANGELOG entry for {version}"
    )
    assert len((folder / "README.md").read_text().strip().splitlines()) >= 2, f"{dist}: README says nothing"
    module = dist.replace("-", "_")
    assert (folder / "src" / module / "py.typed").is_file()
