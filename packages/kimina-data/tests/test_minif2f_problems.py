import json

import pytest
from kimina_data.minif2f import default_minif2f_source
from kimina_data.minif2f_problems import DEFAULT_STATEMENTS, read_minif2f
from kimina_data.sources import SourceError


def test_both_splits_read_with_the_corrected_statements_by_default() -> None:
    rows = [json.loads(line) for line in default_minif2f_source().open(encoding="utf-8")]
    corrected = {r["name"]: r["formal_statement_rectified"] for r in rows if r.get("formal_statement_rectified")}
    assert DEFAULT_STATEMENTS == "corrected"
    for split in ("test", "valid"):
        problems = read_minif2f(default_minif2f_source(), split)
        assert len(problems) == 244 and all(p.split == split for p in problems)
        assert all(p.statement.endswith(":= by") and p.header.startswith("import Mathlib") for p in problems)
        assert all(p.informal and not p.informal.startswith("/--") and not p.informal.endswith("-/") for p in problems)
    test = {p.name: p for p in read_minif2f(default_minif2f_source(), "test")}
    original = {p.name: p for p in read_minif2f(default_minif2f_source(), "test", statements="original")}
    assert len(corrected) == 15
    changed = {name for name in test if test[name].formal_statement != original[name].formal_statement}
    assert changed <= set(corrected) and len(changed) >= 14


def test_the_prompt_shows_plain_informal_text_and_the_statement_without_a_blank_line() -> None:
    problem = read_minif2f(default_minif2f_source())[0]
    system, user = problem.messages()
    assert system["role"] == "system" and user["role"] == "user"
    assert (
        f"# Problem:\n{problem.informal}\n\n# Formal Statement:\n```lean4\n{problem.statement}\n```\n"
        in user["content"]
    )


def test_bad_input_is_named(tmp_path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"name": "x", "split": "test", "formal_statement": "not lean"}\n')
    with pytest.raises(SourceError, match=r"bad.jsonl:1: not a miniF2F row"):
        read_minif2f(path)
    with pytest.raises(SourceError, match="unknown split"):
        read_minif2f(path, "train")
    with pytest.raises(SourceError, match="not found"):
        read_minif2f(tmp_path / "missing.jsonl")
