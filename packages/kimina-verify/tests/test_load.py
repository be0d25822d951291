"""Load: 2,000 snippets from 64 concurrent clients on 8 sim REPLs; none lost, duplicated or reordered.

2,000 (not 5,000) and a generous read timeout: on a machine loaded 7-9 a client may wait minutes for its turn, and
what is tested (64 clients racing on 8 REPLs, duplicates under other ids, order kept) needs no more.
"""

import asyncio
import logging
import random
import time
from typing import Any

import httpx
from kimina_verify.testing import ServerThread, sim_settings

SNIPPETS = 2000
CLIENTS = 64
HEADERS = ["", "import Mathlib\nimport Aesop\n\n", "import Mathlib\n\nopen Real\n\n"]


def snippet(i: int) -> tuple[str, str]:
    """Code whose reply proves which snippet it answers, and the kind of reply expected."""
    header = HEADERS[i % len(HEADERS)]
    kind = ("valid", "sorry", "error", "info")[i % 4]
    if i % 50 == 49:
        i -= 1  # an exact duplicate of the previous snippet's code, under another id
        header, kind = HEADERS[i % len(HEADERS)], ("valid", "sorry", "error", "info")[i % 4]
    body = {
        "valid": f"theorem t{i} : True := trivial",
        "sorry": f"theorem t{i} : True := by\n  sorry",
        "error": f"theorem t{i} : False := by\n  simp -- sim: error e{i}",
        "info": f"#check t{i} -- sim: info i{i}",
    }[kind]
    return header + body, kind


def matches(result: dict[str, Any], i: int) -> bool:
    _, kind = snippet(i)
    source = i - 1 if i % 50 == 49 else i
    response = result.get("response") or {}
    messages = response.get("messages") or []
    if kind == "valid":
        return set(response) == {"env"}
    if kind == "sorry":
        return len(response.get("sorries", [])) == 1
    want = f"e{source}" if kind == "error" else f"i{source}"
    return [m["data"] for m in messages] == [want]


async def test_2000_snippets_64_clients_8_repls_none_lost_duplicated_or_reordered() -> None:
    rng = random.Random(0)
    order = list(range(SNIPPETS))
    batches: list[list[int]] = []
    while order:
        size = rng.randint(1, 16)
        batches.append(order[:size])
        del order[:size]
    settings = sim_settings(max_repls=8, max_queue=SNIPPETS, timeout=120, max_repl_uses=400)
    with ServerThread(settings) as server:
        seen: dict[int, dict[str, Any]] = {}
        limits = httpx.Limits(max_connections=CLIENTS, max_keepalive_connections=CLIENTS)
        async with httpx.AsyncClient(
            base_url=server.url, limits=limits, timeout=httpx.Timeout(600, connect=30)
        ) as http:

            async def client(mine: list[list[int]]) -> None:
                for batch in mine:
                    body = {"snippets": [{"id": f"s{i}", "code": snippet(i)[0]} for i in batch]}
                    response = await http.post("/api/check", json=body)
                    assert response.status_code == 200, response.text
                    results = response.json()["results"]
                    assert [r["id"] for r in results] == [f"s{i}" for i in batch], "results out of order"
                    for i, result in zip(batch, results, strict=True):
                        assert i not in seen, f"s{i} answered twice"
                        seen[i] = result

            started = time.monotonic()
            await asyncio.gather(*(client(batches[k::CLIENTS]) for k in range(CLIENTS)))
            elapsed = time.monotonic() - started
        pool = server.app.state.pool
        assert sorted(seen) == list(range(SNIPPETS)), "snippets lost"
        wrong = [i for i, result in seen.items() if not matches(result, i)]
        assert not wrong, f"{len(wrong)} snippets got another snippet's answer, e.g. s{wrong[0]}: {seen[wrong[0]]}"
        assert sum(pool.metrics.checks.values()) == SNIPPETS
        assert pool.queued == 0 and pool.running == 0
    logging.getLogger(__name__).info(
        "%d snippets in %.1f s (%.0f/s), dedup hits %d", SNIPPETS, elapsed, SNIPPETS / elapsed, pool.metrics.dedup_hits
    )
