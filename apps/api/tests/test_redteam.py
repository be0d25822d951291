"""Red-team reproducers (see docs/red-team-2026-12.md) against `/v1/prove`.

Each is marked `xfail(strict=True)` while its hole is open.
"""

from __future__ import annotations

import pytest
from kimina_api.settings import Settings
from kimina_eval.engines import Messages
from kimina_eval.testing import ScriptedEngine

COMPLETION = (
    "<think>\nsimp closes it\n```tactics\n  norm_num\n```\nor\n```tactics\n  simp\n```\n</think>\n```lean4\n{code}\n```"
)


def echo_engine(calls: list[int]) -> ScriptedEngine:
    """Answers with the statement it was given, proved by `simp` (what a model restating the statement writes)."""

    def reply(messages: Messages, index: int) -> str:
        calls.append(index)
        user = next(m["content"] for m in messages if m["role"] == "user")
        code = user[user.index("import Mathlib") :].split("```")[0].rstrip()
        return COMPLETION.format(code=code + "\n  simp")

    return ScriptedEngine(reply)


@pytest.mark.parametrize(
    "header",
    ["set_option debug.skipKernelTC true", '#eval IO.Process.run {cmd := "id"}'],
    ids=["skip_kernel", "eval"],
)
async def test_refused_header_is_422_before_any_generation(make_client, verifier, header: str) -> None:
    calls: list[int] = []
    statement = f"import Mathlib\n{header}\n\ntheorem t (n : ℕ) : n + 0 = n := by"
    async with make_client(Settings(**verifier), engine=echo_engine(calls)) as client:
        response = await client.post("/v1/prove", json={"formal_statement": statement, "n": 4})
    assert response.status_code == 422, response.text[:300]
    assert calls == []


async def test_statement_running_meta_code_is_refused(make_client, verifier) -> None:
    # In real Lean `by_elab` runs `IO.Process.output` on the verification host, once per attempt and once more when
    # the server elaborates the statement for its checks; the stand-in accepts the attempts.
    calls: list[int] = []
    statement = (
        "import Mathlib\n\ntheorem t (n : ℕ) (_ : (by_elab do\n"
        '    discard <| IO.Process.output { cmd := "id" }\n'
        "    return Lean.mkConst ``True : Prop)) : n + 0 = n := by"
    )
    async with make_client(Settings(**verifier), engine=echo_engine(calls)) as client:
        response = await client.post("/v1/prove", json={"formal_statement": statement, "n": 2})
    assert response.status_code == 422 or not response.json()["proved"], response.text[:300]
