import json
from pathlib import Path
from typing import Any

import datasets
import pytest
from google.genai import errors, types
from kimina_data.schema import canonical_table
from kimina_data.steps import normalise
from kimina_data.testing import FakeGeminiClient, synthetic_answer
from kimina_data.variants import (
    RESPONSE_SCHEMA,
    AnswerCache,
    GeminiCaller,
    GeminiError,
    GeminiSettings,
    MissingApiKeyError,
    RateLimiter,
    cache_key,
    generate_variants,
    make_gemini_client,
)


def problems(n: int) -> datasets.Dataset:
    """`n` synthetic problems, normalised, with win rates n-1/n ... 0 (the last is the hardest)."""
    rows = [
        {
            "uid": f"synthetic-{i}",
            "data_source": "numina-lean",
            "source": "synthetic",
            "header": "import Mathlib\n\nopen Real\n\n",
            "formal_statement": f"theorem p{i} (x : ℕ) (h : x = {i}) : x + {i} = {2 * i} := by",
            "informal_problem": f"(synthetic) If x = {i}, show x + {i} = {2 * i}.",
            "win_rate": (n - 1 - i) / n,
            "n_proofs": None,
            "n_correct_proofs": None,
            "author": "",
            "variant_of": None,
        }
        for i in range(n)
    ]
    return normalise(canonical_table(rows))


def too_many(code: int, status: str = "RESOURCE_EXHAUSTED", delay: str | None = None) -> errors.APIError:
    body: dict[str, Any] = {"code": code, "message": "slow down", "status": status}
    if delay:
        body["details"] = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}]
    return (errors.ClientError if code < 500 else errors.ServerError)(code, {"error": body})


def run(
    table: datasets.Dataset,
    client: FakeGeminiClient,
    cache_path: Path,
    settings: GeminiSettings,
    sleeps: list[float] | None = None,
    **options: Any,
) -> Any:
    caller = GeminiCaller(client, settings, sleep=(sleeps.append if sleeps is not None else lambda s: None))
    with AnswerCache(cache_path) as cache:
        return generate_variants(table, caller, cache, **options)


def test_variants_are_asked_as_structured_json_and_come_back_as_new_normalised_rows(
    tmp_path: Path, fast_gemini: GeminiSettings
) -> None:
    client = FakeGeminiClient()
    result = run(problems(3), client, tmp_path / "cache.sqlite", fast_gemini, per_problem=2)
    call = client.calls[0]
    assert call["model"] == "gemini-2.5-flash"
    assert call["config"]["response_mime_type"] == "application/json"
    assert call["config"]["response_json_schema"] == RESPONSE_SCHEMA
    # The real SDK accepts this config as is: every key is a field of its GenerateContentConfig.
    config = types.GenerateContentConfig.model_validate(call["config"])
    assert config.response_mime_type == "application/json" and config.response_json_schema == RESPONSE_SCHEMA
    assert "Write 2 new problem(s)" in call["prompt"]
    assert "theorem p2 (x : ℕ) (h : x = 2) : x + 2 = 4 := by" in call["prompt"]
    assert "import Mathlib\n\nopen Real" in call["prompt"]
    table = result.table
    assert len(table) == 6 and result.stats.kept == 6 and result.stats.proposed == 6
    row = table[0]
    assert row["uid"] == "synthetic-2/variant-0" and row["variant_of"] == "synthetic-2"
    assert row["win_rate"] is None and row["author"] == "gemini-2.5-flash"
    assert row["header"] == "import Mathlib\n\nopen Real\n\n"
    assert row["formal_statement"].endswith(":= by") and row["data_source"] == "numina-lean"


def test_tokens_and_cost_are_counted_for_calls_made_this_run_only(tmp_path: Path, fast_gemini: GeminiSettings) -> None:
    first = run(problems(4), FakeGeminiClient(), tmp_path / "c.sqlite", fast_gemini)
    assert (first.stats.calls, first.stats.input_tokens, first.stats.output_tokens) == (4, 480, 320)
    assert first.stats.cost_usd == pytest.approx((480 * 0.30 + 320 * 2.50) / 1e6)
    again = run(problems(4), FakeGeminiClient(), tmp_path / "c.sqlite", fast_gemini)
    assert (again.stats.calls, again.stats.cache_hits, again.stats.cost_usd) == (0, 4, 0.0)
    assert again.table.to_list() == first.table.to_list()
    priced = GeminiSettings(model="my-model", input_usd_per_mtok=1.0, output_usd_per_mtok=2.0)
    assert priced.cost_usd(1_000_000, 500_000) == 2.0
    assert GeminiSettings(model="unknown-model").cost_usd(10, 10) is None


def test_the_call_cap_spends_calls_on_the_hardest_problems_and_a_rerun_continues(
    tmp_path: Path, fast_gemini: GeminiSettings
) -> None:
    table = problems(5)
    first_client = FakeGeminiClient()
    first = run(table, first_client, tmp_path / "c.sqlite", fast_gemini, max_calls=2)
    assert (first.stats.calls, first.stats.skipped_by_cap) == (2, 3)
    assert set(first.table["variant_of"]) == {"synthetic-4", "synthetic-3"}  # lowest win rates
    second_client = FakeGeminiClient()
    second = run(table, second_client, tmp_path / "c.sqlite", fast_gemini, max_calls=10)
    assert (second.stats.calls, second.stats.cache_hits) == (3, 2)
    assert not set(second_client.prompts) & set(first_client.prompts)
    assert len(second.table) == 5


@pytest.mark.parametrize("concurrency", [1, 4])
def test_a_crash_mid_run_then_a_rerun_repeats_no_completed_call(
    tmp_path: Path, fast_gemini: GeminiSettings, concurrency: int
) -> None:
    table = problems(12)
    crashed: list[str] = []

    def crash_on_sixth(number: int, prompt: str) -> BaseException | None:
        if number == 5:
            crashed.append(prompt)
            return RuntimeError("process killed")
        return None

    first = FakeGeminiClient(fail=crash_on_sixth)
    with pytest.raises(RuntimeError, match="process killed"):
        run(table, first, tmp_path / "c.sqlite", fast_gemini, concurrency=concurrency)
    answered = set(first.prompts) - set(crashed)
    with AnswerCache(tmp_path / "c.sqlite") as cache:
        assert len(cache) == len(answered) >= 5  # every completed call was stored, in-flight ones included

    second = FakeGeminiClient()
    result = run(table, second, tmp_path / "c.sqlite", fast_gemini, concurrency=concurrency)
    assert not set(second.prompts) & answered
    assert len(second.prompts) == len(set(second.prompts)) == 12 - len(answered)
    assert result.stats.cache_hits == len(answered) and len(result.table) == 12


def test_429_is_retried_with_backoff_and_the_servers_retry_delay(tmp_path: Path, fast_gemini: GeminiSettings) -> None:
    answers = iter([too_many(429), too_many(429, delay="7s"), too_many(503, "UNAVAILABLE")])
    client = FakeGeminiClient(fail=lambda n, p: next(answers, None))
    sleeps: list[float] = []
    settings = GeminiSettings(requests_per_minute=1e9, backoff_s=2.0, max_backoff_s=60.0)
    result = run(problems(1), client, tmp_path / "c.sqlite", settings, sleeps=sleeps)
    assert len(client.calls) == 4 and result.stats.retries == 3 and result.stats.calls == 1
    assert len(result.table) == 1
    backoffs = [s for s in sleeps if s > 1e-6]
    assert 1.0 <= backoffs[0] <= 2.0  # 2 s with jitter
    assert 3.5 <= backoffs[1] <= 7.0  # the server asked for 7 s
    assert 4.0 <= backoffs[2] <= 8.0  # 2 * 2**2, with jitter


def test_retries_used_up_skip_the_problem_and_repeated_failures_stop_the_run(
    tmp_path: Path, fast_gemini: GeminiSettings
) -> None:
    settings = GeminiSettings(requests_per_minute=1e9, backoff_s=0.001, max_retries=2)
    always = FakeGeminiClient(fail=lambda n, p: too_many(503, "UNAVAILABLE"))
    with pytest.raises(GeminiError, match="503 UNAVAILABLE.*rerun resumes"):
        run(problems(5), always, tmp_path / "c.sqlite", settings, concurrency=1, max_consecutive_failures=3)
    assert len(always.calls) == 3 * 3  # three problems, each tried 1 + 2 times

    first_fails = FakeGeminiClient(fail=lambda n, p: too_many(503, "UNAVAILABLE") if n < 3 else None)
    result = run(problems(3), first_fails, tmp_path / "d.sqlite", settings, concurrency=1)
    assert (result.stats.failed_calls, result.stats.calls, len(result.table)) == (1, 2, 2)


def test_a_bad_key_stops_at_once_and_a_bad_request_skips_one_problem(
    tmp_path: Path, fast_gemini: GeminiSettings
) -> None:
    denied = FakeGeminiClient(fail=lambda n, p: too_many(403, "PERMISSION_DENIED"))
    with pytest.raises(GeminiError, match="403 PERMISSION_DENIED"):
        run(problems(3), denied, tmp_path / "c.sqlite", fast_gemini)
    assert len(denied.calls) <= 4  # the calls already in flight, no retry

    bad_request = FakeGeminiClient(fail=lambda n, p: too_many(400, "INVALID_ARGUMENT") if n == 0 else None)
    result = run(problems(3), bad_request, tmp_path / "d.sqlite", fast_gemini, concurrency=1)
    assert (result.stats.failed_calls, result.stats.retries, len(result.table)) == (1, 0, 2)


def test_an_unexpected_error_is_not_retried(tmp_path: Path, fast_gemini: GeminiSettings) -> None:
    client = FakeGeminiClient(fail=lambda n, p: TypeError("bug in our code"))
    with pytest.raises(TypeError):
        run(problems(1), client, tmp_path / "c.sqlite", fast_gemini)
    assert len(client.calls) == 1


def test_malformed_and_unusable_answers_are_rejected_with_reasons_and_still_cached(
    tmp_path: Path, fast_gemini: GeminiSettings
) -> None:
    table = problems(6)
    origin = table[5]["formal_statement"]  # problem 5 is asked first (hardest)

    def variant(statement: str, informal: str = "(synthetic) A variant.") -> dict[str, str]:
        return {"informal_problem": informal, "formal_statement": statement, "change": "x"}

    scripted = [
        "this is not JSON",
        json.dumps({"variants": "none"}),
        json.dumps({"variants": [{"informal_problem": "no statement"}]}),
        None,  # an empty answer, e.g. blocked by safety filters
        json.dumps(
            {
                "variants": [
                    variant("theorem v1 : (1 : ℕ) + 1 = 2 := by\n  norm_num"),
                    variant(origin.replace("theorem p", "theorem renamed_p")),
                    variant("theorem v2 : (2 : ℕ) + 2 = 4 := by"),
                    variant("theorem v3 : (2:ℕ) + 2 = 4 := by sorry"),
                    variant("theorem v4 : (3 : ℕ) + 3 = 6 := by", informal="  "),
                    variant("import Mathlib\nopen Finset\n\ntheorem v5 : (4 : ℕ) + 4 = 8 := by"),
                ]
            }
        ),
    ]
    answers = iter(scripted[::-1])  # problems are asked hardest first: 5, 4, 3, 2, 1, 0
    client = FakeGeminiClient(answer=lambda prompt: next(answers, synthetic_answer(prompt)))
    result = run(table, client, tmp_path / "c.sqlite", fast_gemini, concurrency=1)
    assert result.stats.rejected == {
        "malformed_output": 4,
        "has_proof": 1,
        "same_as_origin": 1,
        "duplicate": 1,
        "empty_informal": 1,
    }
    kept = {row["uid"]: row for row in result.table}
    assert kept["synthetic-5/variant-2"]["formal_statement"] == "theorem v2 : (2 : ℕ) + 2 = 4 := by"
    assert kept["synthetic-5/variant-5"]["header"] == "import Mathlib\n\nopen Real\nopen Finset\n\n"
    malformed = [r for r in result.rejections if r.reason == "malformed_output"]
    assert {r.uid for r in malformed} == {"synthetic-4", "synthetic-3", "synthetic-2", "synthetic-1"}
    details = {r.uid: r.detail for r in malformed}
    assert details["synthetic-4"] == "empty answer" and details["synthetic-1"].startswith("not JSON")
    rerun = FakeGeminiClient()
    again = run(table, rerun, tmp_path / "c.sqlite", fast_gemini)
    assert rerun.calls == [] and again.stats.rejected == result.stats.rejected


def test_many_calls_in_parallel_ask_each_prompt_once(tmp_path: Path, fast_gemini: GeminiSettings) -> None:
    client = FakeGeminiClient()
    result = run(problems(40), client, tmp_path / "c.sqlite", fast_gemini, concurrency=8)
    assert len(client.prompts) == len(set(client.prompts)) == 40
    assert len(result.table) == 40


def test_the_rate_limit_spaces_call_starts() -> None:
    now = [0.0]
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    limiter = RateLimiter(30, clock=lambda: now[0], sleep=sleep)
    for _ in range(3):
        limiter.wait()
    assert sleeps == [2.0, 4.0]  # three calls at t=0 start at 0, 2 and 4 s
    now[0] = 100.0
    limiter.wait()
    assert sleeps == [2.0, 4.0]  # long after: no wait
    with pytest.raises(ValueError):
        RateLimiter(0)


def test_the_cache_is_keyed_by_model_and_prompt_and_survives_reopening(tmp_path: Path) -> None:
    from kimina_data.variants import CachedAnswer

    assert cache_key("a", "p") != cache_key("b", "p") and cache_key("a", "p") != cache_key("a", "q")
    with AnswerCache(tmp_path / "c.sqlite") as cache:
        cache.put(cache_key("a", "p"), "a", "p", CachedAnswer("{}", 3, 4))
    with AnswerCache(tmp_path / "c.sqlite") as cache:
        assert cache.get(cache_key("a", "p")) == CachedAnswer("{}", 3, 4)
        assert cache.get(cache_key("b", "p")) is None


def test_the_real_client_needs_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(MissingApiKeyError, match="GEMINI_API_KEY.*build without variants"):
        make_gemini_client()
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key-not-real")
    client = make_gemini_client()
    assert callable(client.models.generate_content)
