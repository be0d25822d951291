"""verl's own reward-loop worker, configured only by the kimina base config, loads and batches our reward."""

from pathlib import Path
from typing import Any

import numpy as np
from kimina_rl.scoring import REWARD_KEYS
from kimina_rl.service import scorer_for
from kimina_rl.settings import Settings
from kimina_rl.trainer_config import compose_config


def _batch(rows: list[dict[str, Any]], tokenizer: Any) -> Any:
    """A DataProto as verl's agent loop hands finished trajectories to the reward loop (right-padded responses)."""
    import torch
    from verl import DataProto

    chat = [{"role": "user", "content": "prove it"}]
    prompt = tokenizer.encode(tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=False))
    responses = [tokenizer.encode(row["completion"]) + [tokenizer.eos_token_id] for row in rows]
    width = max(map(len, responses))
    padded = torch.full((len(rows), width), tokenizer.pad_token_id)
    mask = torch.zeros(len(rows), len(prompt) + width, dtype=torch.long)
    for i, ids in enumerate(responses):
        padded[i, : len(ids)] = torch.tensor(ids)
        mask[i, : len(prompt) + len(ids)] = 1
    return DataProto.from_dict(
        tensors={
            "prompts": torch.tensor([prompt] * len(rows)),
            "responses": padded,
            "attention_mask": mask,
        },
        non_tensors={
            "data_source": np.array(["minif2f"] * len(rows), dtype=object),
            "reward_model": np.array([{"ground_truth": row["formal_statement"]} for row in rows], dtype=object),
            "extra_info": np.array(
                [{"formal_statement": row["formal_statement"], "uid": row["name"]} for row in rows], dtype=object
            ),
        },
    )


async def test_reward_loop_worker_scores_a_batch(
    well_formed: list[dict[str, Any]], tokenizer: Any, lean_server: str, tmp_path: Path
) -> None:
    from omegaconf import OmegaConf
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker

    tokenizer.save_pretrained(tmp_path / "tokenizer")
    cfg = compose_config(
        [f"actor_rollout_ref.model.path={tmp_path / 'tokenizer'}", f"kimina_rl.verifier.endpoint.url={lean_server}"]
    )
    OmegaConf.resolve(cfg)  # as verl's TaskRunner does before starting workers
    worker = RewardLoopWorker(cfg)
    rows = well_formed[:24]
    results = await worker.compute_score_batch(_batch(rows, tokenizer))
    assert len(results) == len(rows)
    for result in results:
        info = result["reward_extra_info"]
        assert tuple(info) == REWARD_KEYS
        assert result["reward_score"] == info["score"] > 0.9
        assert info["acc"] == 1.0
    # The 24 per-sample calls shared the process's verifier and went out batched (4+ proofs per call on average;
    # how many batches depends on how far apart verl's decoding threads release the calls).
    settings = Settings.from_mapping(OmegaConf.to_container(cfg.kimina_rl))  # type: ignore[arg-type]
    assert scorer_for(settings).verification_calls <= len(rows) // 4
