"""The `hf` rollout server, in process: token in, token out, log-probs as the actor computes them, weights from the actor."""

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch
from kimina_train.references import INJECTED_ERROR
from kimina_train.verl_cpu.server import HFRolloutServer


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from kimina_eval.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def _server(model_dir: Path, **custom: Any) -> HFRolloutServer:
    config = SimpleNamespace(
        response_length=64, prompt_length=64, temperature=1.0, top_p=1.0, top_k=-1, seed=0, custom=custom or None
    )
    return HFRolloutServer(config, str(model_dir))


def _actor_log_probs(server: HFRolloutServer, prompt: list[int], response: list[int]) -> torch.Tensor:
    """What verl's actor computes for the same tokens: log_softmax(logits / T) at each response position."""
    with torch.no_grad():
        logits = server.model(input_ids=torch.tensor([prompt + response])).logits[0, len(prompt) - 1 : -1]
    return torch.log_softmax(logits, -1).gather(-1, torch.tensor(response)[:, None]).squeeze(-1)


async def test_generate_returns_tokens_within_budget_with_the_actors_log_probs(model_dir: Path) -> None:
    server = _server(model_dir)
    prompt = server.tokenizer("theorem t : True := by", add_special_tokens=False)["input_ids"]
    out = await server.generate(prompt, {"temperature": 1.0, "logprobs": True, "max_tokens": 12}, request_id="r1")
    assert 1 <= len(out.token_ids) <= 12 and len(out.log_probs) == len(out.token_ids)
    assert torch.allclose(torch.tensor(out.log_probs), _actor_log_probs(server, prompt, out.token_ids), atol=1e-5)
    without = await server.generate(prompt, {"temperature": 1.0, "logprobs": False, "max_tokens": 4}, request_id="r2")
    assert without.log_probs is None and without.extra_fields["kimina_replay"] == "sampled"


async def test_the_default_budget_is_the_response_length_within_the_context(model_dir: Path) -> None:
    server = _server(model_dir)
    server.eos_ids = [-1]  # never stop early: the budget alone ends the answer
    out = await server.generate(list(range(100)), {"temperature": 1.0}, request_id="r")
    assert len(out.token_ids) == 64 + 64 - 100  # prompt + response may not exceed prompt_length + response_length


async def test_weights_from_the_actor_change_what_the_server_computes(model_dir: Path) -> None:
    server = _server(model_dir)
    prompt, response = [5, 6, 7], [8, 9]
    before = _actor_log_probs(server, prompt, response)
    state = {name: torch.zeros_like(value) for name, value in server.model.state_dict().items()}
    server.load_weights(state, global_steps=3)
    assert server.global_steps == 3
    after = _actor_log_probs(server, prompt, response)
    assert not torch.allclose(before, after)
    assert torch.allclose(
        after, torch.full_like(after, -torch.log(torch.tensor(float(server.model.config.vocab_size))))
    )
    with pytest.raises(ValueError, match="unexpected"):
        server.load_weights({"not.a.weight": torch.zeros(1)})


async def test_a_replayed_answer_is_the_tokenized_reference_labelled_and_logged(
    model_dir: Path, tmp_path: Path
) -> None:
    import json

    reference = "<think>\nrfl\n</think>\n```lean4\ntheorem p1 : 1 = 1 := by\n  rfl\n```"
    completions = tmp_path / "refs.jsonl"
    completions.write_text(json.dumps({"name": "p1", "completion": reference}) + "\n")
    log = tmp_path / "answers.jsonl"
    server = _server(
        model_dir,
        reference_replay={"share": 1.0, "injected_error_share": 0.0, "completions": str(completions), "log": str(log)},
    )
    text = server.tokenizer.apply_chat_template(
        [{"role": "user", "content": "Prove theorem p1 : 1 = 1"}], add_generation_prompt=True, tokenize=False
    )
    prompt = server.tokenizer(text, add_special_tokens=False)["input_ids"]
    out = await server.generate(prompt, {"temperature": 1.0, "logprobs": True}, request_id="r")
    assert out.extra_fields["kimina_replay"] == "reference"
    assert server.tokenizer.decode(out.token_ids, skip_special_tokens=True) == reference
    assert out.token_ids[-1] in server.eos_ids  # ends its turn, as the model's own answers do
    assert torch.allclose(torch.tensor(out.log_probs), _actor_log_probs(server, prompt, out.token_ids), atol=1e-5)
    (entry,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert entry["answer"] == "reference" and entry["problem"] == "p1" and entry["turn"] == 1
    assert entry["response_tokens"] == len(out.token_ids)
    assert server.replay is not None and server.replay.counts == {"reference": 1}
    assert INJECTED_ERROR not in reference
