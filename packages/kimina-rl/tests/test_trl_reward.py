"""`LeanReward` called the way TRL's `GRPOTrainer` calls a reward function, on real Kimina completions."""

import socket
from collections.abc import Callable
from typing import Any

import pytest
from kimina_format import check_format
from kimina_rl.trl_reward import LeanReward
from kimina_verify import VerifierUnavailable

Edit = Callable[[str], str]


class TrainerState:
    """What TRL passes as `trainer_state` (a `transformers.TrainerState`); the reward must ignore it."""

    global_step = 3


def trl_call(reward: LeanReward, prompts: list[Any], completions: list[Any], **columns: list[Any]) -> list[Any]:
    """As `GRPOTrainer._calculate_rewards` does: columns other than prompt/completion as keyword lists."""
    completion_ids = [[0] * (len(_text(c)) // 4) for c in completions]
    return reward(
        prompts=prompts,
        completions=completions,
        completion_ids=completion_ids,
        trainer_state=TrainerState(),
        **columns,
    )


def _text(completion: Any) -> str:
    return completion if isinstance(completion, str) else completion[-1]["content"]


def kimina_data_columns(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """The columns of a kimina-data parquet (`prompt` aside): `extra_info` holds header and statement apart."""
    columns: dict[str, list[Any]] = {"data_source": [], "ability": [], "reward_model": [], "extra_info": []}
    for row in rows:
        header, _, statement = row["formal_statement"].rpartition("\n\n")
        columns["data_source"].append("minif2f-test")
        columns["ability"].append("theorem_proving")
        columns["reward_model"].append({"style": "rule", "ground_truth": row["formal_statement"]})
        columns["extra_info"].append(
            {"header": header + "\n\n", "formal_statement": statement, "uid": row["name"], "split": "test"}
        )
    return columns


@pytest.fixture
def batch(well_formed: list[dict[str, Any]], inject_lean_error: Edit, inject_sorry: Edit) -> list[dict[str, Any]]:
    """Three real completions Lean accepted, one with a Lean error, one with `sorry`, one without any code."""
    rows = [dict(row) for row in well_formed[:6]]
    rows[3]["completion"] = inject_lean_error(rows[3]["completion"])
    rows[4]["completion"] = inject_sorry(rows[4]["completion"])
    rows[5]["completion"] = "<think>I give up.</think>"
    return rows


def expected(rows: list[dict[str, Any]]) -> list[float]:
    scores = [check_format(r["completion"], formal_statement=r["formal_statement"]).score for r in rows[:3]]
    return [*scores, 0.0, 0.0, 0.0]


def test_plain_completions_with_kimina_data_columns(batch: list[dict[str, Any]], lean_server: str) -> None:
    reward = LeanReward({"verifier": {"endpoint": {"url": lean_server}}})
    prompts = ["prove it"] * len(batch)
    rewards = trl_call(reward, prompts, [r["completion"] for r in batch], **kimina_data_columns(batch))
    assert rewards == pytest.approx(expected(batch))
    assert all(isinstance(value, float) for value in rewards) and rewards[0] > 0
    assert reward.__name__ == "kimina_lean_reward"  # TRL logs rewards/<__name__>/mean


def test_conversational_completions_with_flat_columns(
    batch: list[dict[str, Any]], lean_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEAN_SERVER_API_URL", lean_server)  # no settings: the usual variable names the server
    prompts = [[{"role": "user", "content": "prove it"}] for _ in batch]
    completions = [[{"role": "assistant", "content": r["completion"]}] for r in batch]
    columns = {"formal_statement": [r["formal_statement"] for r in batch], "name": [r["name"] for r in batch]}
    rewards = trl_call(LeanReward(), prompts, completions, **columns)
    assert rewards == pytest.approx(expected(batch))


def test_a_changed_statement_scores_zero_like_a_wrong_proof(batch: list[dict[str, Any]], lean_server: str) -> None:
    """The statement column is what the proof is checked against: a proof of another theorem earns nothing."""
    statements = [r["formal_statement"] for r in batch[:2]][::-1]  # each proof checked against the other's theorem
    completions = [r["completion"] for r in batch[:2]]
    reward = LeanReward({"verifier": {"endpoint": {"url": lean_server}}})
    assert trl_call(reward, ["p", "p"], completions, formal_statement=statements) == [0.0, 0.0]


def test_rows_without_a_statement_are_a_clear_error(batch: list[dict[str, Any]], lean_server: str) -> None:
    reward = LeanReward({"verifier": {"endpoint": {"url": lean_server}}})
    with pytest.raises(ValueError, match="has no formal statement"):
        trl_call(reward, ["p"], [batch[0]["completion"]], answer=["42"])
    with pytest.raises(ValueError, match="column 'formal_statement' has 1 values for 2 completions"):
        trl_call(reward, ["p", "p"], [batch[0]["completion"]] * 2, formal_statement=[batch[0]["formal_statement"]])


def _dead_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def test_infra_failures_raise_by_default_and_are_none_on_request(batch: list[dict[str, Any]]) -> None:
    settings = {"verifier": {"endpoint": {"url": _dead_url()}}, "scorer": {"infra_retry_s": 1}}
    columns = {"formal_statement": [r["formal_statement"] for r in batch[:2]]}
    completions = [batch[0]["completion"], "<think>no code, nothing to verify</think>"]
    with pytest.raises(VerifierUnavailable):
        trl_call(LeanReward(settings), ["p", "p"], completions, **columns)
    # "none": the unverifiable proof gets TRL's "no reward", the completion without code its 0 as usual.
    assert trl_call(LeanReward(settings, on_infra="none"), ["p", "p"], completions, **columns) == [None, 0.0]


async def test_it_works_inside_a_running_event_loop(batch: list[dict[str, Any]], lean_server: str) -> None:
    reward = LeanReward({"verifier": {"endpoint": {"url": lean_server}}})
    rewards = trl_call(reward, ["p"], [batch[0]["completion"]], formal_statement=[batch[0]["formal_statement"]])
    assert rewards == pytest.approx(expected(batch)[:1])


def test_completion_ids_give_the_length_penalty_its_token_count(batch: list[dict[str, Any]], lean_server: str) -> None:
    from kimina_format import FormatConfig

    config = FormatConfig()
    between = (config.soft_max_tokens + config.max_tokens) // 2  # half-way into the penalty
    reward = LeanReward({"verifier": {"endpoint": {"url": lean_server}}})
    row = batch[0]
    (long,) = reward(
        completions=[row["completion"]], completion_ids=[[0] * between], formal_statement=[row["formal_statement"]]
    )
    assert long == pytest.approx(0.5, abs=0.01)
