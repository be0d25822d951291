import json
import re
from pathlib import Path
from typing import Any

import pytest
from kimina_eval import SamplingParams, make_engine
from kimina_eval.config import ConfigError, RunConfig
from kimina_eval.dataset import DatasetError, load_problems
from kimina_eval.runner import Runner, RunOptions, RunProgress, run_eval
from kimina_eval.store import load_records
from kimina_eval.summary import summarize
from kimina_eval.testing import ScriptedEngine
from kimina_verify import (
    Endpoint,
    LeanMessage,
    Retries,
    Timeouts,
    Verdict,
    VerdictKind,
    VerifierOptions,
    VerifierUnavailable,
)
from kimina_verify.attempts import FIRST_TURN, FIX_TURN, gets_fix_turn

FAST = RunOptions(batch_problems=2, infra_retries=1, retry_delay_s=0)


def verifier_at(url: str) -> VerifierOptions:
    """The test runs' verifier: no client retries, a short Lean timeout."""
    return VerifierOptions(Endpoint(url), Timeouts(lean_s=5), Retries(count=0))


class Counting:
    """An engine wrapper that counts the completions it is asked for."""

    def __init__(self, engine: Any) -> None:
        self.engine, self.completions = engine, 0

    def generate(self, prompts: Any, n: int, sampling: SamplingParams) -> list[list[str]]:
        self.completions += len(prompts) * n
        return self.engine.generate(prompts, n, sampling)


class Progress:
    def __init__(self) -> None:
        self.updates: list[RunProgress] = []

    def update(self, progress: RunProgress) -> None:
        self.updates.append(progress)


def lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def test_tiny_model_end_to_end_then_resume_without_redoing(tiny_model: Path, lean_url: str, tmp_path: Path) -> None:
    config = RunConfig(model=str(tiny_model), n=2, limit=5, fix_turns=1, sampling=SamplingParams(max_tokens=16, seed=0))
    engine = Counting(make_engine("transformers", str(tiny_model), device="cpu"))
    progress = Progress()
    final = run_eval(config, engine, tmp_path, verifier=verifier_at(lean_url), options=FAST, progress=progress)
    assert engine.completions == 10
    assert (final.total, final.done, final.problems) == (10, 10, 5)
    assert progress.updates[0].done == 0 and progress.updates[-1] == final
    rows = lines(tmp_path)
    assert {(r["problem"], r["sample"], r["turn"]) for r in rows} == {
        (p.name, i, FIRST_TURN) for p in load_problems(limit=5) for i in range(2)
    }
    # A random model writes no lean4 block: nothing to verify, nothing to fix, and never an infra failure.
    assert all(r["verdict"] == "no_proof" and r["correct"] is False and r["format_ok"] is False for r in rows)
    saved = json.loads((tmp_path / "run.json").read_text())
    assert saved["n"] == 2 and saved["first_turn"] == FIRST_TURN  # the turn numbering of samples.jsonl

    # Same settings again: everything is graded already.
    again = run_eval(config, engine, tmp_path, verifier=verifier_at(lean_url), options=FAST)
    assert engine.completions == 10 and again == final
    # More samples per problem: only the new ones are generated.
    bigger = RunConfig(**{**config.__dict__, "n": 3})
    run_eval(bigger, engine, tmp_path, verifier=verifier_at(lean_url), options=FAST)
    assert engine.completions == 15
    assert len(lines(tmp_path)) == 15


def real_completions(data_dir: Path) -> dict[str, str]:
    rows = [json.loads(line) for line in (data_dir / "kimina_completions.jsonl").open()]
    return {r["name"]: r["completion"] for r in rows}


def broken(completion: str, how: str) -> str:
    """Damage the final lean4 block: an error the stand-in reports, or a `sorry`."""
    head, fence, code = completion.rpartition("```lean4\n")
    body, close, tail = code.rpartition("```")
    if how == "error":
        body = body.rstrip("\n") + "\n  -- sim: error unknown identifier 'foo'\n"
    else:
        body = re.sub(r":= by.*", ":= by\n  sorry\n", body, count=1, flags=re.DOTALL)
    return head + fence + body + close + tail


def scripted(data_dir: Path) -> tuple[ScriptedEngine, list[str]]:
    """Five problems with real, Lean-accepted completions; samples: 0 valid, 1 error, 2 no code, 3 sorry."""
    completions = real_completions(data_dir)
    problems = [p for p in load_problems(split="test") if p.name in completions][:5]

    def reply(messages: list[dict[str, str]], i: int) -> str:
        name = next(p.name for p in problems if p.formal_statement in messages[1]["content"])
        real = completions[name]
        if messages[-1]["role"] == "user" and len(messages) > 2:  # the fix turn: answer with the real proof
            return real if name != problems[4].name else broken(real, "error")
        return [real, broken(real, "error"), "<think>no idea</think>", broken(real, "sorry")][i]

    return ScriptedEngine(reply), [p.name for p in problems]


def test_verified_and_fix_paths_with_real_completions(data_dir: Path, lean_url: str, tmp_path: Path) -> None:
    engine, names = scripted(data_dir)
    dataset = tmp_path / "five.jsonl"
    rows = [json.loads(line) for line in (data_dir / "minif2f.jsonl").open()]
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows if r["name"] in names and r["split"] == "test"))
    config = RunConfig(model="scripted", dataset=str(dataset), n=4, fix_turns=1)
    out = tmp_path / "run"
    final = run_eval(config, engine, out, verifier=verifier_at(lean_url), options=FAST)
    assert (final.solved, final.solved_with_fix, final.infra) == (5, 5, 0)

    by_key = {(r["problem"], r["sample"], r["turn"]): r for r in lines(out)}
    for name in names:
        assert by_key[name, 0, FIRST_TURN]["verdict"] == "valid" and by_key[name, 0, FIRST_TURN]["correct"] is True
        assert by_key[name, 1, FIRST_TURN]["verdict"] == "lean_error"
        assert "unknown identifier 'foo'" in by_key[name, 1, FIRST_TURN]["feedback"]
        assert by_key[name, 2, FIRST_TURN]["verdict"] == "no_proof" and (name, 2, FIX_TURN) not in by_key
        assert (
            by_key[name, 3, FIRST_TURN]["verdict"] in {"sorry", "integrity"}
            and by_key[name, 3, FIRST_TURN]["correct"] is False
        )
        assert (name, 0, FIX_TURN) not in by_key  # a valid proof gets no fix turn
    # Fix turns: the failed attempt as the assistant turn, then Lean's feedback on it.
    fix_prompts = [p for prompts, n, _ in engine.calls for p in prompts if len(p) > 2]
    # The attempt protocol: a fix turn for a Lean error in a well-formatted attempt only (sample 1, unless its format
    # broke); none for the `sorry` the static rules reject (integrity), none without code.
    expected = {
        (name, 1)
        for name in names
        if gets_fix_turn(
            format_ok=by_key[name, 1, FIRST_TURN]["format_ok"], code="x", verdict=by_key[name, 1, FIRST_TURN]["verdict"]
        )
    }
    assert {(k[0], k[1]) for k in by_key if k[2] == FIX_TURN} == expected and len(expected) == 4
    assert len(fix_prompts) == len(expected)
    assert all(p[2]["role"] == "assistant" and "unknown identifier" in p[3]["content"] for p in fix_prompts)
    assert by_key[names[0], 1, FIX_TURN]["correct"] is True and by_key[names[4], 1, FIX_TURN]["correct"] is False

    summary = summarize(out)
    # 1 valid first attempt of 4 per problem; fixes rescue sample 1 of three problems.
    fixed = sum(bool(by_key.get((name, 1, FIX_TURN), {}).get("correct")) for name in names)
    assert fixed == 3
    assert summary.scores.pass_at[1].value == pytest.approx(0.25)
    assert summary.scores.pass_at_with_fix[1].value == pytest.approx((5 + fixed) / 20)
    assert summary.scores.pass_at[4].value == 1.0


def test_infra_failures_are_retried_reported_and_regraded_on_resume(
    data_dir: Path, lean_server: Any, tmp_path: Path
) -> None:
    config = RunConfig(model="scripted", n=1, limit=2, fix_turns=1)
    completions = real_completions(data_dir)
    first_two = [p.name for p in load_problems(limit=2)]
    engine = ScriptedEngine(lambda m, i: completions.get(next(n for n in first_two if n in m[1]["content"]), "x"))
    lean_server.fail_checks = 100
    out = run_eval(config, engine, tmp_path, verifier=verifier_at(lean_server.url), options=FAST)
    assert out.infra == 2 and out.done == 0 and out.solved == 0
    records, _ = load_records(tmp_path / "samples.jsonl")
    assert {r.verdict for r in records} == {"infra"} and all(r.correct is None for r in records)
    assert all(r.verify_attempts == 2 for r in records)  # the first try and one retry round
    with pytest.raises(ValueError, match="no graded sample .2 attempts failed for infrastructure"):
        summarize(tmp_path)

    lean_server.fail_checks = 0
    calls = len(engine.calls)
    resumed = run_eval(config, engine, tmp_path, verifier=verifier_at(lean_server.url), options=FAST)
    assert resumed.infra == 0 and resumed.done == 2
    assert len(engine.calls) == calls  # the same completions were verified again, not regenerated


def test_missing_server_is_a_clear_error(tiny_model: Path, tmp_path: Path) -> None:
    config = RunConfig(model="scripted", n=1, limit=1)
    with pytest.raises(VerifierUnavailable, match="no verification server at http://127.0.0.1:9"):
        run_eval(config, ScriptedEngine(lambda m, i: ""), tmp_path, verifier=verifier_at("http://127.0.0.1:9"))


def test_a_different_run_in_the_same_directory_is_refused(lean_url: str, tmp_path: Path) -> None:
    engine = ScriptedEngine(lambda m, i: "nothing")
    run_eval(RunConfig(model="a", n=1, limit=1), engine, tmp_path, verifier=verifier_at(lean_url))
    with pytest.raises(ConfigError, match="model='a'"):
        run_eval(RunConfig(model="b", n=1, limit=1), engine, tmp_path, verifier=verifier_at(lean_url))


def test_corrupt_line_is_skipped_counted_and_its_sample_redone(
    lean_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = Counting(ScriptedEngine(lambda m, i: "nothing"))
    config = RunConfig(model="a", n=2, limit=1)
    run_eval(config, engine, tmp_path, verifier=verifier_at(lean_url))
    samples = tmp_path / "samples.jsonl"
    first, second = samples.read_text().splitlines()
    samples.write_text(first + "\n" + second[: len(second) // 2])  # killed in the middle of a line
    assert summarize(tmp_path).corrupt_lines == [2]
    assert "samples.jsonl:2: skipped" in caplog.text
    run_eval(config, engine, tmp_path, verifier=verifier_at(lean_url))
    assert engine.completions == 3
    records, corrupt = load_records(samples)
    assert len(records) == 2 and corrupt == [2]


def test_unknown_split_and_template_are_refused() -> None:
    with pytest.raises(DatasetError, match="unknown split 'train'"):
        load_problems(split="train")
    with pytest.raises(ConfigError, match="unknown template"):
        RunConfig(model="m", template="chatml")


class FlakyVerifier:
    """First attempts fail with a Lean error; fixes are valid, or infra while `down` is set."""

    def __init__(self) -> None:
        self.down, self.seen = True, []

    async def verify(self, items: Any) -> list[Verdict]:
        self.seen += [item.code for item in items]
        out = []
        for item in items:
            if "fixed" not in item.code:
                out.append(Verdict(VerdictKind.LEAN_ERROR, messages=(LeanMessage("error", "linarith failed", 1),)))
            else:
                out.append(Verdict.infra("HTTP 503") if self.down else Verdict(VerdictKind.VALID))
        return out


async def test_fix_turn_left_infra_is_verified_again_on_resume_not_regenerated(data_dir: Path, tmp_path: Path) -> None:
    # A real, well-formatted completion (a fix turn needs the format to hold), marked in its final block.
    [problem] = load_problems(limit=1)
    real = real_completions(data_dir)[problem.name]

    def reply(messages: list[dict[str, str]], i: int) -> str:
        answer = "fixed" if len(messages) > 2 else "first"
        head, fence, code = real.rpartition("```lean4\n")
        body, close, tail = code.rpartition("```")
        return head + fence + body.rstrip("\n") + f"\n  -- {answer}\n" + close + tail

    engine, verifier = ScriptedEngine(reply), FlakyVerifier()
    config = RunConfig(model="m", n=2, limit=1, fix_turns=1)
    first = await Runner(config, engine, verifier, tmp_path, options=FAST).run()
    assert (first.done, first.solved, first.solved_with_fix, first.infra) == (2, 0, 0, 2)
    fix_prompt = engine.calls[-1][0][0]
    assert "linarith failed" in fix_prompt[-1]["content"] and "-- first" in fix_prompt[-2]["content"]

    verifier.down = False
    calls = len(engine.calls)
    again = await Runner(config, engine, verifier, tmp_path, options=FAST).run()
    assert (again.solved, again.solved_with_fix, again.infra) == (0, 1, 0)
    assert len(engine.calls) == calls
    assert summarize(tmp_path).scores.pass_at_with_fix[2].value == 1.0


async def test_a_run_written_before_0_6_resumes_in_its_own_turn_numbering(data_dir: Path, tmp_path: Path) -> None:
    [problem] = load_problems(limit=1)
    real = real_completions(data_dir)[problem.name]

    def reply(messages: list[dict[str, str]], i: int) -> str:
        answer = "fixed" if len(messages) > 2 else "first"
        head, fence, code = real.rpartition("```lean4\n")
        body, close, tail = code.rpartition("```")
        return head + fence + body.rstrip("\n") + f"\n  -- {answer}\n" + close + tail

    engine, verifier = ScriptedEngine(reply), FlakyVerifier()
    config = RunConfig(model="m", n=2, limit=1, fix_turns=1)
    await Runner(config, engine, verifier, tmp_path, options=FAST).run()
    # Make it a folder of kimina-eval 0.5: turns 0 and 1, run.json without first_turn.
    saved = json.loads((tmp_path / "run.json").read_text())
    del saved["first_turn"]
    (tmp_path / "run.json").write_text(json.dumps(saved))
    old = lines(tmp_path)
    assert {r["turn"] for r in old} == {FIRST_TURN, FIX_TURN}
    (tmp_path / "samples.jsonl").write_text("".join(json.dumps({**r, "turn": r["turn"] - 1}) + "\n" for r in old))

    verifier.down = False
    calls = len(engine.calls)
    again = await Runner(config, engine, verifier, tmp_path, options=FAST).run()
    assert (again.done, again.solved, again.solved_with_fix, again.infra) == (2, 0, 1, 0)
    assert len(engine.calls) == calls  # nothing regenerated: the old rows were read as first attempts and fixes
    rows = lines(tmp_path)
    assert len(rows) > len(old) and {r["turn"] for r in rows} == {0, 1}  # one numbering in the file
    assert "first_turn" not in json.loads((tmp_path / "run.json").read_text())
    summary = summarize(tmp_path)
    assert summary.corrupt_lines == [] and summary.scores.pass_at_with_fix[2].value == 1.0
    records, _ = load_records(tmp_path / "samples.jsonl")  # no run.json needed: the 0s name the numbering
    assert {r.turn for r in records} == {FIRST_TURN, FIX_TURN}


def test_an_engine_factory_is_called_only_after_the_cheap_checks(lean_url: str, tmp_path: Path) -> None:
    built: list[int] = []

    def factory() -> ScriptedEngine:
        built.append(1)
        return ScriptedEngine(lambda m, i: "nothing")

    with pytest.raises(VerifierUnavailable):
        run_eval(RunConfig(model="a", n=1, limit=1), factory, tmp_path, verifier=verifier_at("http://127.0.0.1:9"))
    with pytest.raises(DatasetError, match="unknown split"):
        run_eval(RunConfig(model="a", n=1, limit=1, split="train"), factory, tmp_path, verifier=verifier_at(lean_url))
    run_eval(RunConfig(model="a", n=1, limit=1), factory, tmp_path, verifier=verifier_at(lean_url))
    assert built == [1]
    with pytest.raises(ConfigError, match="model='a'"):
        run_eval(RunConfig(model="b", n=1, limit=1), factory, tmp_path, verifier=verifier_at(lean_url))
    assert built == [1]  # the resume was refused before a second model was built
    records, _ = load_records(tmp_path / "samples.jsonl")
    assert records[0].lean_env is not None and records[0].lean_env.startswith("lean-repl-sim/")
