import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kimina_eval import Engine, EngineError, SamplingParams, make_engine
from kimina_eval.testing import ScriptedEngine
from kimina_eval.tiny_model import build_tiny_model

CONVERSATIONS = [
    [{"role": "system", "content": "You are an expert."}, {"role": "user", "content": "Prove 1 + 1 = 2."}],
    [{"role": "user", "content": "Prove that 2 is prime."}],
]


def test_sampling_params_reject_nonsense() -> None:
    with pytest.raises(ValueError, match="top_p"):
        SamplingParams(top_p=0)
    with pytest.raises(ValueError, match="temperature"):
        SamplingParams(temperature=-1)
    with pytest.raises(ValueError, match="max_tokens"):
        SamplingParams(max_tokens=0)


def test_unknown_engine_names_the_choices() -> None:
    with pytest.raises(ValueError, match="openai, transformers, vllm"):
        make_engine("sglang", "model")


def test_tiny_model_is_cached_and_refuses_foreign_directories(tiny_model: Path, tmp_path: Path) -> None:
    stamp = (tiny_model / "model.safetensors").stat().st_mtime_ns
    assert build_tiny_model(tiny_model) == tiny_model
    assert (tiny_model / "model.safetensors").stat().st_mtime_ns == stamp
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not empty"):
        build_tiny_model(tmp_path)


def test_tiny_model_loads_offline_with_think_tokens_and_chat_template(tiny_model: Path) -> None:
    script = """
import sys
from transformers import AutoModelForCausalLM, AutoTokenizer
tok = AutoTokenizer.from_pretrained(sys.argv[1])
model = AutoModelForCausalLM.from_pretrained(sys.argv[1])
assert type(model).__name__ == "Qwen3ForCausalLM", type(model)
for token in ["<think>", "</think>", "<|im_start|>", "<|im_end|>"]:
    assert len(tok.encode(token, add_special_tokens=False)) == 1, token
ids = tok.encode("<think>x</think>", add_special_tokens=False)
assert tok.decode(ids, skip_special_tokens=True) == "<think>x</think>"
text = tok.apply_chat_template([{"role": "user", "content": "hi"}], add_generation_prompt=True, tokenize=False)
assert text == "<|im_start|>user\\nhi<|im_end|>\\n<|im_start|>assistant\\n", repr(text)
assert tok.eos_token == "<|im_end|>" and tok.padding_side == "left"
"""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    result = subprocess.run([sys.executable, "-c", script, str(tiny_model)], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]


def test_transformers_engine_returns_n_per_prompt_reproducibly(tiny_model: Path) -> None:
    engine = make_engine("transformers", str(tiny_model), device="cpu", batch_size=4)
    assert isinstance(engine, Engine)
    sampling = SamplingParams(max_tokens=12, seed=7)
    first = engine.generate(CONVERSATIONS, 3, sampling)
    assert [len(c) for c in first] == [3, 3]
    assert all(isinstance(text, str) and text for completions in first for text in completions)
    assert engine.generate(CONVERSATIONS, 3, sampling) == first
    greedy = engine.generate(CONVERSATIONS[:1], 2, SamplingParams(temperature=0, max_tokens=8))
    assert greedy[0][0] == greedy[0][1]


def test_openai_engine_sends_the_recipe_settings_and_keeps_order(fake_openai: Any) -> None:
    engine = make_engine("openai", fake_openai.url, api_key="secret", concurrency=2)
    out = engine.generate(CONVERSATIONS, 3, SamplingParams(temperature=0.6, top_p=0.9, max_tokens=99, seed=5))
    assert out[0] == [f"<think>thinking {i} about Prove 1 + 1 = 2.</think>answer {i} t=0.6" for i in range(3)]
    assert out[1][2].startswith("<think>thinking 2 about Prove that 2 is prime.")
    request = next(r for r in fake_openai.requests if r["messages"] == CONVERSATIONS[0])
    assert request["model"] == "tiny-prover"  # discovered from /v1/models
    assert (request["n"], request["temperature"], request["top_p"], request["max_tokens"]) == (3, 0.6, 0.9, 99)
    assert request["seed"] == 5 and request["authorization"] == "Bearer secret"


def test_openai_engine_rebuilds_thinking_split_off_by_a_reasoning_parser(fake_openai: Any) -> None:
    fake_openai.reasoning_split = True
    engine = make_engine("openai", fake_openai.url + "/v1/", served_model="m")
    (completion,) = engine.generate(CONVERSATIONS[1:], 1, SamplingParams())[0]
    assert completion == "<think>\nthinking 0 about Prove that 2 is prime.\n</think>\nanswer 0 t=1.0"


def test_openai_engine_retries_overload_then_succeeds(fake_openai: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kimina_eval.engines.openai_compat.time.sleep", lambda s: None)
    fake_openai.fail_first = 2
    engine = make_engine("openai", fake_openai.url, retries=2)
    assert len(engine.generate(CONVERSATIONS[1:], 2, SamplingParams())[0]) == 2
    assert len(fake_openai.requests) == 3


def test_openai_engine_gives_up_with_a_clear_error(fake_openai: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kimina_eval.engines.openai_compat.time.sleep", lambda s: None)
    fake_openai.fail_first, fake_openai.status = 1, 400
    engine = make_engine("openai", fake_openai.url, retries=3)
    with pytest.raises(EngineError, match="HTTP 400"):
        engine.generate(CONVERSATIONS[1:], 1, SamplingParams())
    assert len(fake_openai.requests) == 1  # a bad request is not retried


def test_openai_engine_reports_a_server_that_is_down() -> None:
    with pytest.raises(EngineError, match="ConnectError"):
        make_engine("openai", "http://127.0.0.1:9", retries=0)


def test_vllm_engine_without_vllm_names_the_extra() -> None:
    try:
        import vllm  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"kimina-eval\[vllm\]") as error:
            make_engine("vllm", "model")
        assert "uv sync --all-packages --extra vllm" in str(error.value)  # the workspace's own command too
    else:
        pytest.skip("vllm is installed; the GPU test below covers it")


@pytest.mark.gpu
def test_vllm_engine_samples_on_gpu(tiny_model: Path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("vllm", reason="the vllm extra is not installed")
    if not torch.cuda.is_available():
        pytest.skip("vLLM needs a CUDA GPU")
    engine = make_engine("vllm", str(tiny_model), gpu_memory_utilization=0.2, max_model_len=2048)
    out = engine.generate(CONVERSATIONS, 2, SamplingParams(max_tokens=16, seed=0))
    assert [len(c) for c in out] == [2, 2]


def test_scripted_engine_replays_and_records() -> None:
    engine = ScriptedEngine(lambda messages, i: f"{messages[-1]['content']}#{i}")
    assert engine.generate(CONVERSATIONS, 2, SamplingParams()) == [
        ["Prove 1 + 1 = 2.#0", "Prove 1 + 1 = 2.#1"],
        ["Prove that 2 is prime.#0", "Prove that 2 is prime.#1"],
    ]
    assert engine.calls[0][1] == 2
