"""`POST /v1/prove` end to end: real completions and the tiny model, against the stand-in verification server."""

from __future__ import annotations

from typing import Any

import pytest
from kimina_api.settings import Settings
from kimina_eval.testing import ScriptedEngine

PROBLEM = "mathd_algebra_171"


def request_for(row: dict[str, Any], **fields: Any) -> dict[str, Any]:
    body = {"formal_statement": row["formal_statement"], "informal_problem": row["informal_prefix"]}
    return body | fields


async def test_valid_proof(make_client, replayer, verifier, minif2f, completions) -> None:
    engine = replayer()
    async with make_client(Settings(**verifier), engine=engine) as client:
        response = await client.post("/v1/prove", json=request_for(minif2f[PROBLEM], n=2))
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["proved"] is True
    assert len(result["attempts"]) == 2
    first = result["attempts"][0]
    assert first["lean"]["kind"] == "valid" and first["lean"]["ok"] is True
    assert first["thinking"] and first["code"] in completions[PROBLEM]
    assert result["proof"] == first["code"]
    assert first["format"]["score"] >= 0 and isinstance(first["format"]["violations"], list)
    assert first["stage"] == "done" and first["fix"] is None
    assert first["timings"]["verify_s"] > 0
    assert result["unverified"] == 0
    assert response.headers["x-request-id"] == result["id"]
    # The model saw the header the server added and the informal problem.
    ((prompt,), n, sampling) = engine.calls[0]
    user = prompt[-1]["content"]
    assert n == 2 and "import Mathlib" in user and "f(x)=5x+4" in user
    assert (sampling.temperature, sampling.top_p) == (0.6, 0.95)


async def test_invalid_proof_is_disproved_with_lean_messages(make_client, replayer, verifier, minif2f) -> None:
    async with make_client(Settings(**verifier), engine=replayer(broken_first=True)) as client:
        response = await client.post("/v1/prove", json=request_for(minif2f[PROBLEM]))
    result = response.json()
    assert response.status_code == 200
    assert result["proved"] is False and result["proof"] is None
    (attempt,) = result["attempts"]
    assert attempt["lean"]["kind"] == "lean_error" and attempt["lean"]["ok"] is False
    assert any(
        "this_lemma_does_not_exist" in m["text"] and m["severity"] == "error" for m in attempt["lean"]["messages"]
    )
    assert attempt["feedback"] is None and attempt["fix"] is None  # fix_turns defaults to 0


async def test_fix_turn_repairs_a_failed_attempt(make_client, replayer, verifier, minif2f) -> None:
    engine = replayer(broken_first=True)
    async with make_client(Settings(**verifier), engine=engine) as client:
        response = await client.post("/v1/prove", json=request_for(minif2f[PROBLEM], fix_turns=1))
    result = response.json()
    (attempt,) = result["attempts"]
    assert attempt["lean"]["kind"] == "lean_error"
    assert "this_lemma_does_not_exist" in attempt["feedback"]
    fix = attempt["fix"]
    assert fix["turn"] == 2 and fix["lean"]["kind"] == "valid"
    assert result["proved"] is True and result["proof"] == fix["code"]
    # The fix turn's conversation: the first answer, then Lean's feedback as the user's turn.
    fix_prompt = engine.calls[1][0][0]
    assert [m["role"] for m in fix_prompt][-2:] == ["assistant", "user"]
    assert attempt["feedback"] in fix_prompt[-1]["content"]


async def test_statement_with_header_and_sorry_is_accepted(make_client, replayer, verifier, minif2f) -> None:
    row = minif2f[PROBLEM]
    statement = row["header"] + row["formal_statement"].rstrip() + " sorry"
    async with make_client(Settings(**verifier), engine=replayer()) as client:
        response = await client.post("/v1/prove", json={"formal_statement": statement})
    assert response.status_code == 200 and response.json()["proved"] is True


async def test_stream_sends_attempts_then_the_result(make_client, replayer, verifier, minif2f, sse_events) -> None:
    async with make_client(Settings(**verifier), engine=replayer(broken_first=True)) as client:
        body = request_for(minif2f[PROBLEM], n=2, fix_turns=1, stream=True)
        async with client.stream("POST", "/v1/prove", json=body) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            text = "".join([chunk async for chunk in response.aiter_text()])
    events = sse_events(text)
    names = [name for name, _ in events]
    assert names[-1] == "result" and names.count("result") == 1 and "error" not in names
    stages = [(data["index"], data["stage"], data["fix"] is not None) for name, data in events if name == "attempt"]
    # Each attempt is seen generated, then verifying, then verified; later its fix turn appears.
    for index in (0, 1):
        mine = [(stage, has_fix) for i, stage, has_fix in stages if i == index]
        assert mine[:3] == [("generated", False), ("verifying", False), ("done", False)]
        assert mine[-1] == ("done", True)
    result = events[-1][1]
    assert result["proved"] is True and all(a["fix"]["lean"]["ok"] for a in result["attempts"])


async def test_tiny_model_end_to_end(make_client, tiny_model, verifier, minif2f, sse_events) -> None:
    settings = Settings(engine="transformers", model=str(tiny_model), default_max_tokens=24, **verifier)
    async with make_client(settings) as client:
        health = await client.get("/health")
        assert health.status_code == 200 and health.json()["engine"]["ok"]
        response = await client.post("/v1/prove", json=request_for(minif2f[PROBLEM], n=3, fix_turns=1))
        stream = await client.post("/v1/prove", json=request_for(minif2f[PROBLEM], stream=True))
    result = response.json()
    assert response.status_code == 200 and result["model"] == str(tiny_model)
    assert len(result["attempts"]) == 3 and result["proved"] is False
    for attempt in result["attempts"]:
        # A random model writes no lean4 block: nothing to verify, and the format check says why. Its sampling is not
        # seeded, and it may end at once: the completion is then empty, which the format check rejects too.
        assert isinstance(attempt["completion"], str) and attempt["code"] is None and attempt["lean"] is None
        assert attempt["format"]["ok"] is False and attempt["format"]["violations"]
    assert sse_events(stream.text)[-1][0] == "result"


async def test_verify_false_skips_lean(make_client, replayer, minif2f) -> None:
    async with make_client(Settings(), engine=replayer()) as client:  # no verifier configured at all
        response = await client.post("/v1/prove", json=request_for(minif2f[PROBLEM], verify=False))
        refused = await client.post("/v1/prove", json=request_for(minif2f[PROBLEM]))
    result = response.json()
    assert response.status_code == 200 and result["attempts"][0]["lean"] is None and result["proved"] is False
    assert result["attempts"][0]["code"]
    assert refused.status_code == 503 and "verify=false" in refused.json()["detail"]


async def test_verifier_down_reports_unverified_not_disproved(make_client, replayer, closed_port_url, minif2f) -> None:
    engine = replayer(broken_first=True)
    settings = Settings(verifier={"endpoint": {"url": closed_port_url}}, verify_timeout_s=20)
    async with make_client(settings, engine=engine) as client:
        response = await client.post("/v1/prove", json=request_for(minif2f[PROBLEM], n=2, fix_turns=1))
        health = await client.get("/health")
    result = response.json()
    assert response.status_code == 200
    assert result["proved"] is False and result["unverified"] == 2
    for attempt in result["attempts"]:
        assert attempt["lean"]["kind"] == "infra" and attempt["lean"]["ok"] is False
        assert attempt["lean"]["detail"]
        assert attempt["fix"] is None  # an outage is not the model's mistake: no fix turn
    assert len(engine.calls) == 1
    assert health.status_code == 503 and health.json()["verifier"]["ok"] is False


async def test_engine_failure_is_503_with_the_reason(make_client, verifier, minif2f) -> None:
    def fail(messages: Any, index: int) -> str:
        raise RuntimeError("CUDA out of memory")

    async with make_client(Settings(**verifier), engine=ScriptedEngine(fail)) as client:
        response = await client.post("/v1/prove", json=request_for(minif2f[PROBLEM]))
        streamed = await client.post("/v1/prove", json=request_for(minif2f[PROBLEM], stream=True))
        metrics = (await client.get("/metrics")).text
    assert response.status_code == 503
    assert "CUDA out of memory" in response.json()["detail"]
    assert "error" in streamed.text and "CUDA out of memory" in streamed.text and '"status":503' in streamed.text
    assert 'kimina_api_requests_total{outcome="engine_error"} 2.0' in metrics


async def test_engine_that_fails_to_load_is_reported(make_client, tmp_path, minif2f) -> None:
    settings = Settings(engine="transformers", model=str(tmp_path / "no-such-model"))
    async with make_client(settings) as client:
        health = await client.get("/health")
        response = await client.post("/v1/prove", json=request_for(minif2f[PROBLEM], verify=False))
    assert health.status_code == 503 and health.json()["engine"]["ok"] is False
    assert response.status_code == 503 and "no-such-model" in response.json()["detail"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"formal_statement": "example : 1 + 1 = 2 := by"}, "must contain a `theorem` or `lemma`"),
        ({"formal_statement": "/- theorem t : True := by -/ def x := 1"}, "must contain a `theorem` or `lemma`"),
        ({"formal_statement": ""}, "formal_statement"),
        ({"formal_statement": "theorem t : True := by", "n": 0}, "n:"),
        ({"formal_statement": "theorem t : True := by", "n": 17}, "n=17 is over this server's limit of 16"),
        ({"formal_statement": "theorem t : True := by", "fix_turns": 2}, "fix_turns"),
        ({"formal_statement": "theorem t : True := by", "sampling": {"max_tokens": 40000}}, "max_tokens=40000"),
        ({"formal_statement": "theorem t : True := by", "samples": 3}, "samples: Extra inputs are not permitted"),
        ({"formal_statement": "theorem t : True := by " + "x" * 20_000}, "formal_statement is 20023 characters long"),
        ({"statement": "theorem t : True := by"}, "formal_statement: Field required"),
    ],
)
async def test_bad_requests_get_a_clear_422(make_client, replayer, body, reason) -> None:
    async with make_client(Settings(), engine=replayer()) as client:
        response = await client.post("/v1/prove", json=body)
    assert response.status_code == 422
    assert reason in response.json()["detail"]


async def test_malformed_json_and_oversized_bodies(make_client, replayer) -> None:
    async with make_client(Settings(max_body_bytes=4096), engine=replayer()) as client:
        malformed = await client.post(
            "/v1/prove", content=b'{"formal_statement": ', headers={"content-type": "application/json"}
        )
        huge = await client.post("/v1/prove", json={"formal_statement": "theorem t : True := by " + "x" * 10_000})

        async def chunks():  # no Content-Length: the limit still holds
            for _ in range(10):
                yield b"x" * 1000

        streamed = await client.post("/v1/prove", content=chunks(), headers={"content-type": "application/json"})
    assert malformed.status_code == 422 and "not valid JSON" in malformed.json()["detail"]
    assert huge.status_code == 413 and "4096 bytes" in huge.json()["detail"]
    assert streamed.status_code == 413
