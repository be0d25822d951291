"""Property-based: whatever a client sends to `/api/check` or `/verify`, the server answers below 500, and a request
it accepts gets exactly one result per snippet, in order. Requests are drawn from the schema, then bent: wrong types,
NaN and Infinity, huge numbers, lone surrogates (escaped, or as raw invalid UTF-8), deep nesting, extra keys."""

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from kimina_client.models import VerifyRequestBody
from kimina_verify.testing import ServerThread, sim_settings

LEAN = [
    "theorem t : True := trivial",
    "def x := 1",
    "theorem t : True := by\n  sorry",
    "import Mathlib\nimport Aesop\n\ntheorem t : 1 + 1 = 2 := by norm_num",
    "theorem t : False := by\n  simp -- sim: error simp made no progress",
    "",
]
INFOTREES = ["full", "tactics", "original", "substantive"]

text = st.text(max_size=30)  # every code point, lone surrogates included
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    text,
)
junk = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3), max_leaves=8
)
codes = st.sampled_from(LEAN) | text
timeouts = st.integers(min_value=0, max_value=3) | st.sampled_from([-1, 10**12, 2**63, 1.5, 1e400]) | junk


def options(flags: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Some of `flags`, and sometimes a key the schema does not know."""
    return st.fixed_dictionaries({}, optional={**flags, "unknown": junk})


check_snippet = st.fixed_dictionaries({"id": text, "code": codes}, optional={"extra": junk})
check_body = (
    st.fixed_dictionaries(
        {"snippets": st.lists(check_snippet | junk, max_size=6) | junk},
    )
    | junk
)
check_options = options(
    {
        "timeout": timeouts,
        "debug": st.booleans() | junk,
        "reuse": st.booleans() | junk,
        "infotree": st.sampled_from(INFOTREES) | junk,
    }
)
custom_ids = text | st.integers(min_value=-(10**40), max_value=10**40) | junk
verify_code = st.fixed_dictionaries({"custom_id": custom_ids}, optional={"proof": codes | junk, "code": codes | junk})
verify_body = st.fixed_dictionaries({"codes": st.lists(verify_code | junk, max_size=6) | junk}) | junk
verify_options = options(
    {
        "timeout": timeouts,
        "infotree_type": st.sampled_from(INFOTREES) | junk,
        "disable_cache": st.booleans() | junk,
    }
)


@st.composite
def encoded(draw: st.DrawFn, body: st.SearchStrategy[Any], extra: st.SearchStrategy[dict[str, Any]]) -> bytes:
    """A body as a client might put it on the wire: ASCII-escaped or raw UTF-8, sometimes nested deep."""
    value = draw(body)
    if isinstance(value, dict):
        value = {**value, **draw(extra)}
    if draw(st.integers(0, 9)) == 0:
        value = {"snippets": value, "codes": value}
        for _ in range(draw(st.integers(150, 250))):
            value = [value]
    try:
        text = json.dumps(value, ensure_ascii=draw(st.booleans()), allow_nan=True)
    except RecursionError:
        text = "[]"
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate becomes bytes that are not UTF-8


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with ServerThread(sim_settings(max_repls=2, timeout=5, max_timeout=5, max_batch=5)) as server:
        with httpx.Client(base_url=server.url, timeout=60) as http:
            yield http


def answer(client: httpx.Client, path: str, raw: bytes) -> httpx.Response:
    response = client.post(path, content=raw, headers={"content-type": "application/json"})
    assert response.status_code < 500, (response.status_code, response.text[:500], raw[:500])
    if response.status_code != 200:
        detail = response.json()["detail"]
        reasons = [detail] if isinstance(detail, str) else [item["msg"] for item in detail]
        assert reasons and all(isinstance(r, str) and r and "\n" not in r for r in reasons), detail
    return response


def assert_one_result_each(results: list[dict[str, Any]], ids: list[str], id_field: str) -> None:
    assert [r[id_field] for r in results] == ids
    for result in results:
        assert ("response" in result) != ("error" in result), result


PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(raw=encoded(check_body, check_options))
def test_check_never_5xx_and_answers_every_snippet_in_order(client: httpx.Client, raw: bytes) -> None:
    response = answer(client, "/api/check", raw)
    if response.status_code == 200:
        sent = json.loads(raw.decode("utf-8"))
        assert_one_result_each(response.json()["results"], [s["id"] for s in sent["snippets"]], "id")


@PROPERTY
@given(raw=encoded(verify_body, verify_options))
def test_verify_never_5xx_and_answers_every_code_in_order(client: httpx.Client, raw: bytes) -> None:
    response = answer(client, "/verify", raw)
    if response.status_code == 200:
        sent = VerifyRequestBody.model_validate_json(raw)
        assert_one_result_each(response.json()["results"], [str(c.custom_id) for c in sent.codes], "custom_id")


valid_check = st.fixed_dictionaries(
    {
        "snippets": st.lists(
            st.fixed_dictionaries({"id": text, "code": codes}), min_size=1, max_size=5, unique_by=lambda s: s["id"]
        )
    },
    optional={
        "timeout": st.integers(0, 3),
        "debug": st.booleans(),
        "reuse": st.booleans(),
        "infotree": st.sampled_from(INFOTREES),
    },
)


@PROPERTY
@given(body=valid_check)
def test_every_valid_request_is_accepted(client: httpx.Client, body: dict[str, Any]) -> None:
    """The twin of the property above: hardening refuses nothing the schema allows (surrogates aside: not text)."""
    text = json.dumps(body, ensure_ascii=False)
    assume(not any(0xD800 <= ord(c) <= 0xDFFF for c in text))
    response = answer(client, "/api/check", text.encode())
    assert response.status_code == 200, response.text[:500]
    assert_one_result_each(response.json()["results"], [s["id"] for s in body["snippets"]], "id")
