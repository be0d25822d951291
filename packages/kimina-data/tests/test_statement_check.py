import pytest
from kimina_data.schema import canonical_table
from kimina_data.statement_check import check_statements, sorry_snippet, statement_check_from_url
from kimina_verify import VerifierUnavailable

HEADER = "import Mathlib\n\n"
GOOD = "theorem good (n : ℕ) (h : n = 2) : n + 1 = 3 := by"
# `lean-repl-sim` turns a `-- sim: error` comment into a Lean error, as real Lean would for a broken statement.
BROKEN = "theorem broken (n : ℕ) -- sim: error unknown identifier 'Foo.bar'\n    : Foo.bar n := by"


def variants(*statements: str) -> object:
    return canonical_table(
        [
            {
                "uid": f"p/variant-{i}",
                "data_source": "numina-lean",
                "source": "synthetic",
                "header": HEADER,
                "formal_statement": statement,
                "informal_problem": "(synthetic)",
                "win_rate": None,
                "n_proofs": None,
                "n_correct_proofs": None,
                "author": "gemini-2.5-flash",
                "variant_of": "p",
            }
            for i, statement in enumerate(statements)
        ]
    )


def test_only_statements_that_come_back_as_sorry_are_kept() -> None:
    answers = {GOOD: "sorry", BROKEN: "lean_error", "theorem slow : True := by": "timeout"}
    sent: list[str] = []

    def check(snippets: list[str]) -> list[str]:
        sent.extend(snippets)
        return [next(v for k, v in answers.items() if k in s) for s in snippets]

    kept, rejections, stats = check_statements(variants(GOOD, BROKEN, "theorem slow : True := by"), check)
    assert sent[0] == sorry_snippet(HEADER, GOOD) == f"{HEADER}{GOOD}\n  sorry\n"
    assert kept["formal_statement"] == [GOOD]
    assert {r.uid: r.reason for r in rejections} == {"p/variant-1": "check_lean_error", "p/variant-2": "check_timeout"}
    assert rejections[0].record["formal_statement"] == BROKEN  # the dropped row itself is kept in the report
    assert (stats.checked, stats.kept, stats.dropped) == (3, 1, {"check_lean_error": 1, "check_timeout": 1})


def test_a_check_that_loses_verdicts_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="1 verdicts for 2 snippets"):
        check_statements(variants(GOOD, GOOD.replace("good", "other")), lambda snippets: ["sorry"])


def test_no_url_and_no_environment_means_no_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEAN_SERVER_API_URL", raising=False)
    assert statement_check_from_url(None) is None


def test_a_server_that_is_down_is_a_clear_error() -> None:
    check = statement_check_from_url("http://127.0.0.1:9")
    assert check is not None
    with pytest.raises(VerifierUnavailable, match=r"127\.0\.0\.1:9 does not answer"):
        check([sorry_snippet(HEADER, GOOD)])


def test_statements_are_checked_by_the_stand_in_verification_server() -> None:
    testing = pytest.importorskip("kimina_verify.testing", reason="kimina-verify's test server is not available")
    with testing.sim_server() as url:
        check = statement_check_from_url(url)
        assert check is not None
        sneaky = "#eval 1\ntheorem sneaky : True := by"  # integrity rules other than the sorry ones still apply
        snippets = [sorry_snippet(HEADER, GOOD), sorry_snippet(HEADER, BROKEN), sorry_snippet(HEADER, sneaky)]
        assert check(snippets) == ["sorry", "lean_error", "integrity"]
        kept, rejections, _ = check_statements(variants(GOOD, BROKEN), check)
    assert kept["uid"] == ["p/variant-0"]
    assert [r.reason for r in rejections] == ["check_lean_error"]


def test_the_server_comes_from_lean_server_api_url(monkeypatch: pytest.MonkeyPatch) -> None:
    testing = pytest.importorskip("kimina_verify.testing", reason="kimina-verify's test server is not available")
    with testing.sim_server() as url:
        monkeypatch.setenv("LEAN_SERVER_API_URL", url)
        check = statement_check_from_url(None)  # no verify_url: the variable kimina-client reads names the server
        assert check is not None and check([sorry_snippet(HEADER, GOOD)]) == ["sorry"]


def test_headers_pass_kimina_verifys_header_rules_before_lean() -> None:
    """A header from a dataset row or a Gemini variant reaches Lean only if `check_header` allows it."""
    testing = pytest.importorskip("kimina_verify.testing", reason="kimina-verify's test server is not available")
    headers = [
        "import Mathlib\nset_option debug.skipKernelTC true\n\n",
        'import Mathlib\n#eval IO.Process.run {cmd := "id"}\n\n',
        "import Lake\n\n",
        "import Mathlib\nset_option maxHeartbeats 400000\nopen Real\n\n",  # the look-alike: allowed
    ]
    with testing.sim_server() as url:
        check = statement_check_from_url(url)
        assert check is not None
        assert check([sorry_snippet(h, GOOD) for h in headers]) == ["integrity", "integrity", "integrity", "sorry"]
