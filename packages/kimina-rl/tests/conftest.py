"""Shared fixtures: real completions, the composed base config, the stand-in verification server, a tiny tokenizer."""

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from omegaconf import DictConfig

_CHATML = (
    "{%- for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{%- endfor %}"
    "{%- if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{%- endif %}"
)


def pytest_configure(config: pytest.Config) -> None:
    # verl announces every optional training engine it cannot import; none of them matter on CPU.
    config.addinivalue_line("filterwarnings", "ignore:.*engine is not available.*:UserWarning")
    config.addinivalue_line("filterwarnings", "ignore:Ray state API is no longer experimental:DeprecationWarning")


@pytest.fixture(scope="session")
def completions(data_dir: Path) -> list[dict[str, Any]]:
    """Real Kimina-Prover completions (every one a proof Lean accepted)."""
    lines = (data_dir / "kimina_completions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture(scope="session")
def well_formed(completions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The real completions that pass the default format check (most of them)."""
    from kimina_format import check_format

    return [row for row in completions if check_format(row["completion"], formal_statement=row["formal_statement"]).ok]


def with_lean_error(completion: str, message: str = "unsolved goals") -> str:
    """The completion with a `lean-repl-sim` directive ending its final proof: the stand-in reports a Lean error."""
    head, sep, tail = completion.rpartition("```lean4\n")
    code, fence, rest = tail.partition("\n```")
    assert sep and fence, "completion has no closed final lean4 block"
    return head + sep + code + f"\n  -- sim: error {message}" + fence + rest


def with_sorry(completion: str) -> str:
    """The completion with its final proof replaced by `sorry`."""
    head, sep, tail = completion.rpartition("```lean4\n")
    code, fence, rest = tail.partition("\n```")
    proof_start = re.search(r":=\s*by\b", code)
    assert sep and fence and proof_start is not None
    return head + sep + code[: proof_start.end()] + "\n  sorry" + fence + rest


@pytest.fixture(scope="session")
def inject_lean_error() -> Callable[[str], str]:
    """`with_lean_error`, for test modules (conftest cannot be imported under `--import-mode=importlib`)."""
    return with_lean_error


@pytest.fixture(scope="session")
def inject_sorry() -> Callable[[str], str]:
    """`with_sorry`, for test modules."""
    return with_sorry


@pytest.fixture(scope="session")
def base_config() -> DictConfig:
    """The composed `kimina_drgrpo` config (composition imports verl once, ~10 s)."""
    from kimina_rl.trainer_config import compose_config

    return compose_config()


@pytest.fixture(scope="session")
def sim_url() -> Iterator[str]:
    """kimina-verify's stand-in server (the real server with `lean-repl-sim` REPLs) on a loopback port."""
    from kimina_verify.testing import sim_server

    with sim_server(max_repls=2) as url:
        yield url


@pytest.fixture
def lean_server(sim_url: str) -> str:
    """The stand-in's URL (it answers the `#print axioms` the verifier appends, so the axiom check stays on)."""
    return sim_url


@pytest.fixture(scope="session")
def tokenizer(completions: list[dict[str, Any]]) -> Any:
    """A tiny byte-level BPE tokenizer with ChatML markers and `<think>` tokens, trained in-process (~1 s)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1500,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator((row["completion"] for row in completions[:40]), trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    tok.add_tokens(["<think>", "</think>"])  # ordinary added tokens, as in Qwen3: decoding keeps them
    tok.chat_template = _CHATML
    return tok
