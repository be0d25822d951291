"""End to end across packages: a real completion goes through kimina-format, kimina-verify's client and server, and
kimina-rl's reward, and every known way to game that reward scores 0."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from kimina_format import check_format
from kimina_format.testing import data_file
from kimina_rl.reward import compute_score
from kimina_verify import VerifierUnavailable
from kimina_verify.testing import sim_server


def _load_completions() -> list[dict[str, Any]]:
    path = data_file("kimina_completions.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    # Three real completions that the default format check accepts, so the Lean side decides the score.
    return [row for row in rows if check_format(row["completion"], formal_statement=row["formal_statement"]).ok][:3]


COMPLETIONS = _load_completions()


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with sim_server(max_repls=2) as url:
        yield url


async def score(completion: str, statement: str, url: str, **scorer: Any) -> dict[str, Any]:
    return await compute_score(
        "minif2f-test",
        completion,
        statement,
        {"formal_statement": statement},
        verifier={"endpoint": {"url": url}},
        scorer=scorer,
    )


def final_block(completion: str) -> tuple[int, int]:
    """Start and end offsets of the final lean4 block's body."""
    start = completion.rindex("```lean4") + len("```lean4\n")
    return start, completion.index("```", start)


@pytest.mark.parametrize("row", COMPLETIONS, ids=[row["name"] for row in COMPLETIONS])
async def test_real_completion_is_rewarded(row: dict[str, Any], server_url: str) -> None:
    result = await score(row["completion"], row["formal_statement"], server_url)
    assert result["acc"] == 1
    assert result["verdict"] == "valid"
    assert result["format_ok"]
    assert 0 < result["score"] <= 1


def _with_sorry(completion: str, statement: str) -> str:
    start, end = final_block(completion)
    theorem_at = completion.index(":= by", completion.index("theorem", start)) + len(":= by")
    return completion[:theorem_at] + "\n  sorry\n" + completion[end:]


def _with_axiom(completion: str, statement: str) -> str:
    start, end = final_block(completion)
    body = completion[start:end]
    cut = body.index("theorem")
    theorem_at = body.index(":= by", cut) + len(":= by")
    forged = body[:cut] + "axiom cheat : False\n\n" + body[cut:theorem_at] + "\n  exact cheat.elim\n"
    return completion[:start] + forged + completion[end:]


def _weakened(completion: str, statement: str) -> str:
    start, end = final_block(completion)
    body = completion[start:end]
    theorem_at = body.index(":= by", body.index("theorem"))
    # Replace the conclusion with `True`: a statement anyone can prove.
    colon = body.rindex(" : ", 0, theorem_at)
    forged = body[:colon] + " : True := by\n  trivial\n"
    return completion[:start] + forged + completion[end:]


def _no_thinking(completion: str, statement: str) -> str:
    start, _ = final_block(completion)
    return completion[start - len("```lean4\n") :]


@pytest.mark.parametrize(
    ("forge", "verdicts"),
    [
        (_with_sorry, {"sorry", "integrity"}),
        (_with_axiom, {"integrity"}),
        (_weakened, {"integrity"}),
        (_no_thinking, {"valid", "skipped", "not_checked"}),  # Lean may accept it: the format gate must zero it
    ],
    ids=["sorry", "axiom", "weakened-statement", "no-thinking"],
)
async def test_gamed_completion_scores_zero(forge: Any, verdicts: set[str], server_url: str) -> None:
    row = COMPLETIONS[0]
    forged = forge(row["completion"], row["formal_statement"])
    result = await score(forged, row["formal_statement"], server_url)
    assert result["score"] == 0
    assert result["acc"] == 0 or not result["format_ok"]
    if forge is not _no_thinking:
        assert result["verdict"] in verdicts, result


async def test_every_sample_reports_the_same_keys(server_url: str) -> None:
    row = COMPLETIONS[0]
    good = await score(row["completion"], row["formal_statement"], server_url)
    bad = await score(_with_sorry(row["completion"], row["formal_statement"]), row["formal_statement"], server_url)
    assert set(good) == set(bad)


async def test_dead_server_stops_training_instead_of_scoring_zero() -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    row = COMPLETIONS[1]
    with pytest.raises(VerifierUnavailable):
        await score(row["completion"], row["formal_statement"], url, infra_retry_s=1.0)
