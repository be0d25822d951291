"""Which Lean answers, said wherever results appear; the statement's header and code checked before any REPL."""

from __future__ import annotations

from typing import Any

import pytest
from kimina_api.settings import Settings

PROBLEM = "mathd_algebra_171"
THEOREM = "theorem mathd_algebra_171 (f : ℝ → ℝ) (h₀ : ∀ x, f x = 5 * x + 4) : f 1 = 9 := by"


async def test_health_and_responses_name_the_stand_in(make_client, replayer, verifier, minif2f) -> None:
    async with make_client(Settings(**verifier), engine=replayer()) as client:
        health = (await client.get("/health")).json()
        proved = (
            await client.post("/v1/prove", json={"formal_statement": minif2f[PROBLEM]["formal_statement"]})
        ).json()
        unverified = (await client.post("/v1/prove", json={"formal_statement": THEOREM, "verify": False})).json()
    assert health["verifier"]["ok"] is True and health["verifier"]["stand_in"] is True
    assert health["verifier"]["lean_env"].startswith("lean-repl-sim/")
    assert "STAND-IN" in health["verifier"]["detail"] and "not proofs" in health["verifier"]["detail"]
    assert proved["proved"] is True and proved["stand_in"] is True and proved["lean_env"].startswith("lean-repl-sim/")
    # Nothing was verified: no Lean to name.
    assert unverified["stand_in"] is False and unverified["lean_env"] is None


@pytest.mark.parametrize(
    ("header", "rule"),
    [
        ('import Mathlib\n#eval IO.Process.run { cmd := "id" }\n\n', "header_command"),
        ("import Mathlib\nset_option debug.skipKernelTC true\n\n", "header_option"),
        ("import Lake\n\n", "header_import"),
        ('import Mathlib\nrun_cmd Lean.logInfo "hi"\n\n', "header_command"),
    ],
)
async def test_a_statement_whose_header_could_run_code_is_refused_with_the_rule(
    make_client, replayer, verifier, header: str, rule: str
) -> None:
    engine = replayer()
    async with make_client(Settings(**verifier), engine=engine) as client:
        response = await client.post("/v1/prove", json={"formal_statement": header + THEOREM})
    assert response.status_code == 422, response.text
    assert f"[{rule}]" in response.json()["detail"] and response.json()["detail"].startswith("formal_statement: ")
    assert engine.calls == []  # refused before any generation, and before any REPL saw it


@pytest.mark.parametrize(
    "header",
    [
        "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n",
        "import Mathlib\nopen Real\n-- a comment mentioning #eval and debug.skipKernelTC\n\n",
    ],
)
async def test_ordinary_headers_are_served(make_client, replayer, verifier, header: str) -> None:
    async with make_client(Settings(**verifier), engine=replayer()) as client:
        response = await client.post("/v1/prove", json={"formal_statement": header + THEOREM})
    assert response.status_code == 200, response.text


def test_the_verifier_comes_from_lean_server_api_url_as_in_every_kimina_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LEAN_SERVER_API_URL", "http://verifier:8000")
    monkeypatch.setenv("LEAN_SERVER_API_KEY", "secret")
    settings: Any = Settings()
    assert settings.verifier.endpoint.url == "http://verifier:8000"
    assert settings.verifier.endpoint.api_key == "secret"
    # The API's own variable wins, and a field given in code wins over both.
    monkeypatch.setenv("KIMINA_API_VERIFIER__ENDPOINT__URL", "http://own:9000")
    assert Settings().verifier.endpoint.url == "http://own:9000"
    assert Settings(verifier={"endpoint": {"url": "http://given:1"}}).verifier.endpoint.url == "http://given:1"
