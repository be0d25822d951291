"""The `kimina_fix` agent loop, run as verl runs it, with a scripted model server and the stand-in Lean server."""

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from kimina_rl.scoring import REWARD_KEYS
from kimina_rl.trainer_config import agent_loop_config_path, compose_config
from omegaconf import OmegaConf

Edit = Callable[[str], str]


class ScriptedServer:
    """Stands in for verl's LLM server client: answers each `generate` with the next scripted completion.

    `answers` is one script, or one script per theorem name (picked by the name appearing in the prompt).
    """

    def __init__(self, tokenizer: Any, answers: list[str] | dict[str, list[str]]) -> None:
        self.tokenizer = tokenizer
        self.scripts = {"": list(answers)} if isinstance(answers, list) else {k: list(v) for k, v in answers.items()}
        self.calls: list[tuple[list[int], dict[str, Any]]] = []

    async def generate(
        self, request_id: str, *, prompt_ids: list[int], sampling_params: dict[str, Any], **_: Any
    ) -> Any:
        from verl.workers.rollout.replica import TokenOutput

        self.calls.append((list(prompt_ids), dict(sampling_params)))
        prompt = self.tokenizer.decode(prompt_ids)
        script = next(answers for name, answers in self.scripts.items() if name in prompt)
        ids = self.tokenizer.encode(script.pop(0), add_special_tokens=False) + [self.tokenizer.eos_token_id]
        if sampling_params.get("max_tokens") is not None:  # as vLLM does
            ids = ids[: sampling_params["max_tokens"]]
        steps = {"min_global_steps": 3, "max_global_steps": 3 + len(self.calls)}
        return TokenOutput(token_ids=ids, log_probs=[-0.5] * len(ids), num_preempted=0, extra_fields=steps)


Run = Callable[..., Awaitable[tuple[Any, ScriptedServer, Any]]]


@pytest.fixture
def run_loop(tokenizer: Any, lean_server: str) -> Run:
    """Instantiate `kimina_fix` from its agent-loop YAML as verl's worker does, and run it on one row."""

    async def run(row: dict[str, Any], answers: list[str], *overrides: str) -> tuple[Any, ScriptedServer, Any]:
        import hydra
        from kimina_format.prompts import build_messages
        from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap
        from verl.utils.dataset.rl_dataset import RLHFDataset

        cfg = compose_config(
            [
                "data.max_prompt_length=2048",
                "data.max_response_length=12000",
                f"kimina_rl.verifier.endpoint.url={lean_server}",
                *overrides,
            ]
        )
        server = ScriptedServer(tokenizer, answers)
        (entry,) = OmegaConf.load(agent_loop_config_path())
        loop = hydra.utils.instantiate(
            config=entry,
            trainer_config=DictConfigWrap(cfg),
            server_manager=server,
            tokenizer=tokenizer,
            processor=None,
            hf_model_type="qwen3",
            dataset_cls=RLHFDataset,
            data_config=DictConfigWrap(cfg.data),
            tools=ToolListWrap([]),
        )
        output = await loop.run(
            {"temperature": 1.0, "top_p": 1.0, "top_k": -1, "logprobs": True},
            raw_prompt=build_messages(row["formal_statement"]),
            data_source="minif2f",
            reward_model={"style": "rule", "ground_truth": row["formal_statement"]},
            extra_info={"formal_statement": row["formal_statement"], "uid": row["name"]},
        )
        return output, server, cfg

    return run


@pytest.fixture(scope="session")
def short_rows(well_formed: list[dict[str, Any]], tokenizer: Any) -> list[dict[str, Any]]:
    """Well-formed real completions short enough (< 4000 tokens) for two turns in the test budget."""
    rows = [row for row in well_formed if len(tokenizer.encode(row["completion"])) < 4000]
    assert len(rows) >= 3
    return rows


def _segments(mask: list[int]) -> list[tuple[int, int]]:
    """(value, length) runs of the loss mask."""
    runs: list[tuple[int, int]] = []
    for value in mask:
        if runs and runs[-1][0] == value:
            runs[-1] = (value, runs[-1][1] + 1)
        else:
            runs.append((value, 1))
    return runs


async def test_first_try_proof_ends_the_trajectory(run_loop: Run, short_rows: list[dict[str, Any]]) -> None:
    row = short_rows[0]
    output, server, _ = await run_loop(row, [row["completion"]])
    assert len(server.calls) == 1 and output.num_turns == 2
    assert set(output.response_mask) == {1}
    info = output.extra_fields["reward_extra_info"]
    assert tuple(info) == REWARD_KEYS
    assert (info["acc"], info["acc_turn_1"], info["acc_turn_2"], info["fix_turn"]) == (1.0, 1.0, 1.0, 0.0)
    assert output.reward_score == info["score"] == info["format_score"] > 0.9
    assert len(output.response_logprobs) == len(output.response_ids)


async def test_lean_failure_gets_one_fix_turn_with_feedback_out_of_the_loss(
    run_loop: Run, short_rows: list[dict[str, Any]], tokenizer: Any, inject_lean_error: Edit
) -> None:
    row = short_rows[1]
    broken = inject_lean_error(row["completion"], "unknown identifier 'nlinarith_plus'")
    output, server, cfg = await run_loop(row, [broken, row["completion"]])
    assert len(server.calls) == 2 and output.num_turns == 4
    turn1, feedback, turn2 = _segments(output.response_mask)
    assert (turn1[0], feedback[0], turn2[0]) == (1, 0, 1)
    # The revision was generated from the prompt, the first answer and the feedback, in that order.
    second_prompt, second_params = server.calls[1]
    assert second_prompt == output.prompt_ids + output.response_ids[: turn1[1] + feedback[1]]
    shown = tokenizer.decode(output.response_ids[turn1[1] : turn1[1] + feedback[1]])
    assert "<|im_start|>user" in shown and "<|im_start|>assistant" in shown
    assert "unknown identifier 'nlinarith_plus'" in shown and "Lean 4 rejected the proof above" in shown
    # Both turns share max_response_length: the revision got exactly what was left.
    assert second_params["max_tokens"] == cfg.data.max_response_length - turn1[1] - feedback[1]
    info = output.extra_fields["reward_extra_info"]
    assert (info["acc_turn_1"], info["acc_turn_2"], info["acc"], info["fix_turn"]) == (0.0, 1.0, 1.0, 1.0)
    assert output.reward_score == info["score"] == info["format_score"] > 0
    assert output.extra_fields["turn_scores"] == [0.0, info["score"]]
    assert output.extra_fields["max_global_steps"] == 5  # the newest weights that produced a token
    logprobs = output.response_logprobs
    assert len(logprobs) == len(output.response_mask)
    assert set(logprobs[turn1[1] : turn1[1] + feedback[1]]) == {0.0}


async def test_failed_revision_scores_zero_and_fix_reward_scale(
    run_loop: Run, short_rows: list[dict[str, Any]], inject_lean_error: Edit
) -> None:
    row = short_rows[1]
    broken = inject_lean_error(row["completion"])
    output, _, _ = await run_loop(row, [broken, broken])
    assert output.extra_fields["reward_extra_info"]["acc"] == 0.0 and output.reward_score == 0.0
    output, _, _ = await run_loop(row, [broken, row["completion"]], "kimina_rl.fix.reward_scale=0.5")
    info = output.extra_fields["reward_extra_info"]
    assert output.reward_score == pytest.approx(0.5 * info["format_score"])


async def test_no_fix_turn_without_a_well_formed_lean_failure(
    run_loop: Run, short_rows: list[dict[str, Any]], inject_lean_error: Edit
) -> None:
    row = short_rows[0]
    # Broken format: Lean's opinion is not worth a revision.
    output, server, _ = await run_loop(row, ["<think>I give up.</think>", row["completion"]])
    assert len(server.calls) == 1 and output.reward_score == 0.0
    assert output.extra_fields["reward_extra_info"]["verdict"] == "no_code"
    # Not enough budget left for a revision after the feedback.
    broken = inject_lean_error(row["completion"])
    output, server, _ = await run_loop(row, [broken, row["completion"]], "kimina_rl.fix.min_revision_tokens=11000")
    assert len(server.calls) == 1 and set(output.response_mask) == {1}
    info = output.extra_fields["reward_extra_info"]
    assert (info["fix_turn"], info["acc_turn_1"], info["acc_turn_2"]) == (0.0, 0.0, 0.0)
    # Feedback that cannot fit its token budget is not shown.
    output, server, _ = await run_loop(row, [broken, row["completion"]], "kimina_rl.fix.max_feedback_tokens=8")
    assert len(server.calls) == 1


async def test_revision_is_cut_at_max_response_length(
    run_loop: Run, short_rows: list[dict[str, Any]], inject_lean_error: Edit, tokenizer: Any
) -> None:
    row = short_rows[1]
    first = inject_lean_error(row["completion"])
    budget = len(tokenizer.encode(first)) + 1 + 600  # room for the feedback and a little of the revision
    output, server, _ = await run_loop(
        row,
        [first, row["completion"]],
        f"data.max_response_length={budget}",
        "kimina_rl.fix.min_revision_tokens=16",
    )
    assert len(server.calls) == 2
    assert len(output.response_ids) == len(output.response_mask) == budget
    info = output.extra_fields["reward_extra_info"]
    assert info["fix_turn"] == 1.0 and info["score"] == 0.0  # the cut revision has no closed proof


async def test_first_turn_can_be_kept_out_of_the_loss(
    run_loop: Run, short_rows: list[dict[str, Any]], inject_lean_error: Edit
) -> None:
    row = short_rows[1]
    broken = inject_lean_error(row["completion"])
    output, _, _ = await run_loop(row, [broken, row["completion"]], "kimina_rl.fix.train_first_turn=false")
    runs = _segments(output.response_mask)
    assert [value for value, _ in runs] == [0, 1]  # first answer and feedback masked, revision trained


async def test_outputs_pass_through_verls_postprocessing(
    run_loop: Run, short_rows: list[dict[str, Any]], tokenizer: Any, inject_lean_error: Edit
) -> None:
    import torch
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker

    row = short_rows[1]
    single, _, cfg = await run_loop(row, [row["completion"]])
    fixed, _, _ = await run_loop(row, [inject_lean_error(row["completion"]), row["completion"]])

    class Worker:
        """The parts of verl's AgentLoopWorker its post-processing uses (as verl's own CPU tests do)."""

        _compute_multi_modal_inputs = AgentLoopWorker._compute_multi_modal_inputs
        _compute_position_ids = AgentLoopWorker._compute_position_ids
        _get_mm_processor_kwargs = AgentLoopWorker._get_mm_processor_kwargs
        _compute_score = AgentLoopWorker._compute_score
        _compute_teacher_logprobs = AgentLoopWorker._compute_teacher_logprobs
        _pad_token_ids = AgentLoopWorker._pad_token_ids
        _postprocess = AgentLoopWorker._postprocess
        distillation_enabled = False
        processor = None
        mm_processor_kwargs: dict[str, Any] = {}
        reward_loop_worker_handles = object()  # streaming reward on: skipped because the loop scored already

        def __init__(self) -> None:
            self.tokenizer = tokenizer
            self.rollout_config = cfg.actor_rollout_ref.rollout

    worker = Worker()
    padded = [
        await AgentLoopWorker._agent_loop_postprocess(worker, out, validate=False, raw_prompt=[])
        for out in (single, fixed)
    ]
    batch = worker._postprocess(padded)
    rm_scores = batch.batch["rm_scores"]
    assert rm_scores.shape == (2, cfg.data.max_response_length)
    lengths = [len(single.response_ids), len(fixed.response_ids)]
    for i, (output, length) in enumerate(zip((single, fixed), lengths, strict=True)):
        # The reward sits on the last response token, nowhere else.
        assert rm_scores[i, length - 1] == pytest.approx(output.reward_score)
        assert torch.count_nonzero(rm_scores[i]) == 1
    assert batch.meta_info["reward_extra_keys"] == list(REWARD_KEYS)
    assert batch.non_tensor_batch["acc_turn_1"].tolist() == [1.0, 0.0]
    assert batch.non_tensor_batch["acc_turn_2"].tolist() == [1.0, 1.0]
    assert batch.batch["response_mask"][1].sum() < lengths[1]  # the feedback is out of the loss


async def test_verls_agent_loop_worker_runs_kimina_fix(
    short_rows: list[dict[str, Any]], tokenizer: Any, lean_server: str, inject_lean_error: Edit, tmp_path: Path
) -> None:
    """verl's own AgentLoopWorker, built from the composed config, dispatches rows to kimina_fix."""
    import numpy as np
    from kimina_format.prompts import build_messages
    from transformers import Qwen3Config
    from verl import DataProto
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker

    model = tmp_path / "model"  # a tokenizer and a model config are all the worker reads
    tokenizer.save_pretrained(model)
    tiny = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2}
    config = Qwen3Config(vocab_size=len(tokenizer), num_key_value_heads=1, architectures=["Qwen3ForCausalLM"], **tiny)
    config.save_pretrained(model)
    cfg = compose_config(
        [
            f"actor_rollout_ref.model.path={model}",
            "data.max_prompt_length=2048",
            "data.max_response_length=12000",
            f"kimina_rl.verifier.endpoint.url={lean_server}",
        ]
    )
    solved, fixed = short_rows[0], short_rows[1]
    scripts = {
        solved["name"]: [solved["completion"]],
        fixed["name"]: [inject_lean_error(fixed["completion"]), fixed["completion"]],
    }
    server = ScriptedServer(tokenizer, scripts)
    worker = AgentLoopWorker(cfg, server)
    rows = [solved, fixed]
    prompts = np.empty(len(rows), dtype=object)
    prompts[:] = [build_messages(r["formal_statement"]) for r in rows]
    batch = DataProto.from_dict(
        non_tensors={
            "raw_prompt": prompts,
            "data_source": np.array(["minif2f"] * 2, dtype=object),
            "reward_model": np.array([{"ground_truth": r["formal_statement"]} for r in rows], dtype=object),
            "extra_info": np.array([{"formal_statement": r["formal_statement"], "uid": r["name"]} for r in rows]),
            "index": np.array([0, 1]),
        },
        meta_info={"validate": False, "global_steps": 1},
    )
    # No `agent_name` column: verl falls back to rollout.agent.default_agent_loop, which the base sets to kimina_fix.
    output = await worker.generate_sequences(batch)
    assert output.non_tensor_batch["agent_name"].tolist() == ["kimina_fix"] * 2
    assert output.non_tensor_batch["acc_turn_1"].tolist() == [1.0, 0.0]
    assert output.non_tensor_batch["acc_turn_2"].tolist() == [1.0, 1.0]
    assert output.non_tensor_batch["__num_turns__"].tolist() == [2, 4]
    assert output.batch["rm_scores"].sum(dim=1).tolist() == pytest.approx(output.non_tensor_batch["score"].tolist())
    assert output.meta_info["reward_extra_keys"] == list(REWARD_KEYS)
    assert len(server.calls) == 3
