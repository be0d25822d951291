"""`compute_score` on real Kimina completions against the stand-in verification server."""

import asyncio
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kimina_rl.history import WinRateHistory
from kimina_rl.reward import compute_score
from kimina_rl.scoring import REWARD_KEYS, seal_reward
from kimina_rl.service import scorer_for
from kimina_rl.settings import Settings
from kimina_verify import VerifierUnavailable

Edit = Callable[[str], str]


def _kwargs(url: str) -> dict[str, Any]:
    return {"verifier": {"endpoint": {"url": url}}}


def _extra(row: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"formal_statement": row["formal_statement"], "uid": row["name"], **more}


async def _score(row: dict[str, Any], url: str, completion: str | None = None, **kwargs: Any) -> dict[str, Any]:
    text = row["completion"] if completion is None else completion
    return await compute_score("minif2f", text, row["formal_statement"], _extra(row), **(_kwargs(url) | kwargs))


async def test_real_completions_score_with_identical_keys(completions: list[dict[str, Any]], lean_server: str) -> None:
    from kimina_format import check_format

    rows = completions[:60]
    results = await asyncio.gather(*(_score(row, lean_server) for row in rows))
    for row, result in zip(rows, results, strict=True):
        assert tuple(result) == REWARD_KEYS
        expected = check_format(row["completion"], formal_statement=row["formal_statement"])
        assert result["format_ok"] == float(expected.ok)
        assert result["violations"] == ",".join(str(code) for code in expected.codes)
        # Every one of these proofs was accepted by Lean; the stand-in accepts them too.
        assert result["acc"] == 1.0 and result["verdict"] == "valid"
        assert result["score"] == pytest.approx(expected.score)
        assert result["acc_turn_1"] == result["acc_turn_2"] == result["acc"]
        assert result["fix_turn"] == 0.0
    assert sum(result["score"] > 0 for result in results) >= 0.9 * len(rows)
    # The 60 concurrent calls went out as a few batched verification calls (4+ proofs each on average), not 60.
    settings = Settings.from_mapping(_kwargs(lean_server))
    assert scorer_for(settings).verification_calls <= len(rows) // 4


async def test_lean_error_sorry_and_changed_statement_score_zero(
    well_formed: list[dict[str, Any]], lean_server: str, inject_lean_error: Edit, inject_sorry: Edit
) -> None:
    row = well_formed[0]
    error = await _score(row, lean_server, inject_lean_error(row["completion"]))
    assert (error["verdict"], error["acc"], error["score"]) == ("lean_error", 0.0, 0.0)
    assert error["format_ok"] == 1.0  # the format alone earns nothing
    sorry = await _score(row, lean_server, inject_sorry(row["completion"]))
    assert sorry["verdict"] in {"sorry", "integrity"} and sorry["score"] == sorry["acc"] == 0.0
    other = well_formed[1]
    swapped = await compute_score(
        "minif2f", row["completion"], other["formal_statement"], _extra(other), **_kwargs(lean_server)
    )
    assert swapped["verdict"] == "integrity" and swapped["score"] == 0.0
    missing = await _score(row, lean_server, "<think>no proof here</think>")
    assert (missing["verdict"], missing["score"], missing["acc"]) == ("no_code", 0.0, 0.0)
    assert tuple(missing) == tuple(error) == tuple(sorry) == REWARD_KEYS


async def test_kimina_data_rows_join_header_and_statement(well_formed: list[dict[str, Any]], lean_server: str) -> None:
    row = well_formed[0]
    header, _, statement = row["formal_statement"].rpartition("\n\n")
    info = {"header": header + "\n\n", "formal_statement": statement, "uid": "x"}
    result = await compute_score("numina", row["completion"], statement, info, **_kwargs(lean_server))
    assert result["acc"] == 1.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def test_dead_server_raises_after_the_retry_budget(well_formed: list[dict[str, Any]]) -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    started = time.monotonic()
    with pytest.raises(VerifierUnavailable, match=r"kept failing for \d+ s.*infra_retry_s=3\)"):
        await _score(well_formed[0], url, verifier={"endpoint": {"url": url}}, scorer={"infra_retry_s": 3})
    assert 1.0 < time.monotonic() - started < 10  # retried once after ~2 s, then gave up: never a silent 0


async def test_server_that_comes_back_is_waited_for(
    well_formed: list[dict[str, Any]],
) -> None:
    from kimina_verify.testing import sim_server

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    ready = threading.Event()
    stop = threading.Event()

    def serve_later() -> None:
        time.sleep(0.5)
        with sim_server(max_repls=1, port=port):
            ready.set()
            stop.wait(60)

    thread = threading.Thread(target=serve_later, daemon=True)
    thread.start()
    try:
        result = await compute_score(
            "minif2f",
            well_formed[0]["completion"],
            None,
            _extra(well_formed[0]),
            verifier={"endpoint": {"url": url}},
            scorer={"infra_retry_s": 60},
        )
    finally:
        stop.set()
        thread.join(30)
    assert ready.is_set()
    assert result["verdict"] == "valid"  # scored once the server answered, not 0 while it was down


async def test_training_outcomes_reach_the_history(
    well_formed: list[dict[str, Any]], lean_server: str, tmp_path: Path, inject_lean_error: Edit
) -> None:
    history = {"path": str(tmp_path / "history-{host}.sqlite")}  # one file per node in a multi-node run
    row = well_formed[0]
    texts = [row["completion"], inject_lean_error(row["completion"]), row["completion"]]
    await asyncio.gather(*(_score(row, lean_server, text, history=history) for text in texts))
    # Validation rows (extra_info.split) are scored but not counted.
    await compute_score(
        "minif2f", row["completion"], None, _extra(row, split="test"), **_kwargs(lean_server), history=history
    )
    with WinRateHistory(tmp_path / f"history-{socket.gethostname()}.sqlite") as stored:
        rate = stored.get(row["name"])
    assert rate is not None and (rate.n_proofs, rate.n_correct_proofs) == (3, 2)
    assert rate.formal_statement == row["formal_statement"]


async def test_bad_rows_and_settings_are_clear_errors(well_formed: list[dict[str, Any]], lean_server: str) -> None:
    row = well_formed[0]
    with pytest.raises(ValueError, match="no formal statement"):
        await compute_score("numina", row["completion"], None, {"uid": "x"}, **_kwargs(lean_server))
    with pytest.raises(ValueError, match="unknown reward_kwargs"):
        await _score(row, lean_server, verifeir={"url": lean_server})
    with pytest.raises(ValueError, match=r"kimina_rl.verifier.endpoint.ulr: unknown key; did you mean url\?"):
        await compute_score("numina", row["completion"], None, _extra(row), verifier={"endpoint": {"ulr": lean_server}})


async def test_agent_scored_trajectories_are_passed_through() -> None:
    ready = dict.fromkeys(REWARD_KEYS, 0.0) | {"score": 0.5}
    sealed = {"kimina_reward": ready, "kimina_reward_seal": seal_reward(ready)}
    assert await compute_score("x", "ignored", None, sealed) == ready


async def test_a_dataset_row_cannot_bring_its_own_reward() -> None:
    # Without the agent loop's seal (or with a seal of another reward) the mapping is ignored and the sample scored.
    ready = dict.fromkeys(REWARD_KEYS, 0.0) | {"score": 1.0}
    for forged in ({"kimina_reward": ready}, {"kimina_reward": ready, "kimina_reward_seal": seal_reward({})}):
        with pytest.raises(ValueError, match="formal statement"):
            await compute_score("x", "ignored", None, forged)


async def test_lean_timeout_scores_zero(well_formed: list[dict[str, Any]], lean_server: str) -> None:
    row = well_formed[0]
    head, fence, tail = row["completion"].rpartition("\n```")  # the final block's closing fence
    slow = head + "\n  -- sim: sleep 5" + fence + tail
    result = await _score(
        row, lean_server, slow, verifier={"endpoint": {"url": lean_server}, "timeouts": {"lean_s": 1}}
    )
    assert (result["verdict"], result["score"], result["acc"]) == ("timeout", 0.0, 0.0)
