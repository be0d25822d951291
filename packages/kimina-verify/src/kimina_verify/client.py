"""`Verifier`: the async client that turns thousands of proofs into verdicts through a kimina-lean-server.

Per call: static integrity rules first (rejected code never reaches Lean), then the verdict cache, then the server in
batches with bounded concurrency. Identical code in flight is sent once, whoever asked for it. Only infrastructure
failures are retried, with exponential backoff; what is still failing afterwards comes back as an `infra` verdict.
With a server that runs the checks in Lean (`kimina-verify serve`, `kimina_checks` in its `/health` extensions), the
target's kind, type and axioms are checked by separate Lean commands; with any other server, `#print axioms` is
appended to the code as before, and the verdicts say so (`lean_checks=False`).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kimina_verify.assembly import CheckCode, build_check_code
from kimina_verify.cache import VerdictCache, cache_key
from kimina_verify.code import LeanCode
from kimina_verify.integrity import SORRY_RULES, check_integrity
from kimina_verify.lean_checks import EXTENSION
from kimina_verify.options import DEFAULT_URL, VerifierOptions, warn_flat
from kimina_verify.result import ServerResult
from kimina_verify.transport import ServerRejectedError, Transport
from kimina_verify.verdict import Verdict, VerdictKind, result_kind, verdict_from_result

# DEFAULT_URL lives in options; it stays importable from here, where it was before 0.5.
__all__ = ["DEFAULT_URL", "Verifier", "VerifyItem", "verify_sync"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class VerifyItem:
    """One proof to verify.

    Attributes:
        code: The model's Lean code (its final `lean4` block); helper lemmas are kept.
        formal_statement: The dataset statement (with its header): its theorem must appear unchanged in `code`.
        theorem: Name of the theorem to check when there is no formal statement (default: every theorem).
        allow_sorry: Elaborate code that may hold `sorry` (a statement check, a lemma sketch): the `sorry`, `admit`
            and `sorryAx` rules are skipped, every other rule still applies, and elaborating code with `sorry` comes
            back as `sorry` (a Lean error is still `lean_error`). Never set it for proofs you reward. The cache and
            de-duplication apply as for proofs; they key on the code sent to Lean and its answer, which the flag
            does not change (it only lets code with `sorry` through to Lean).
    """

    code: str
    formal_statement: str | None = None
    theorem: str | None = None
    allow_sorry: bool = False


@dataclass
class _Job:
    key: str
    text: str
    checks: dict[str, Any] | None
    future: asyncio.Future[tuple[ServerResult, bool]]


class Verifier:
    """Async client for any kimina-lean-server-compatible verification server.

    One instance serves any number of concurrent `verify` calls, within one event loop (its connection pool and
    semaphore belong to the loop that first uses them).

    Args:
        options: Every setting, grouped (`kimina_verify.options`); default `VerifierOptions()`. A URL string and
            the flat keywords of kimina-verify 0.4 (`timeout=`, `batch_size=`, ...) still work, with a
            `DeprecationWarning`, for one release.
        verdict_cache: A ready `VerdictCache` (shared between clients); overrides `options.cache`.

    Example:
        >>> async def main() -> None:  # doctest: +SKIP
        ...     options = VerifierOptions(Endpoint("http://localhost:8000"), cache="~/.cache/kimina/verdicts.sqlite")
        ...     async with Verifier(options) as verifier:
        ...         verdicts = await verifier.verify(["theorem t : 1 + 1 = 2 := by norm_num"])
        ...         print(verdicts[0].kind)
    """

    def __init__(
        self,
        options: VerifierOptions | str | None = None,
        api_key: str | None = None,
        *,
        verdict_cache: VerdictCache | None = None,
        **flat: Any,
    ) -> None:
        if isinstance(options, str) or api_key is not None or flat:
            if isinstance(options, VerifierOptions):
                raise TypeError("pass either VerifierOptions or the deprecated flat keywords, not both")
            warn_flat(["url", *flat] if options is not None else list(flat) or ["api_key"])
            if isinstance(flat.get("cache"), VerdictCache):
                verdict_cache = verdict_cache or flat.pop("cache")
            options = VerifierOptions.from_flat(url=options, api_key=api_key, **flat)
        self.options = options = options or VerifierOptions()
        self.url = options.endpoint.resolved_url()
        self.policy = options.checks.policy
        if verdict_cache is not None:
            self.cache: VerdictCache | None = verdict_cache
        else:
            self.cache = VerdictCache(options.cache) if options.cache is not None else None
        self._lean_env = options.lean_env
        self._lean_checks = options.checks.lean_checks
        self._extensions: frozenset[str] | None = None
        self._warned_fallback = False
        self._semaphore = asyncio.Semaphore(options.limits.max_concurrency)
        self._inflight: dict[str, asyncio.Future[tuple[ServerResult, bool]]] = {}
        timeouts, limits = options.timeouts, options.limits
        self._transport = Transport(
            self.url,
            options.endpoint.resolved_api_key(),
            http_timeout=timeouts.http_s or timeouts.lean_s * limits.batch_size + 60.0,
            max_connections=limits.max_concurrency,
            protocol=options.endpoint.protocol,
        )

    async def __aenter__(self) -> Verifier:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connection pool and the cache."""
        await self._transport.aclose()
        if self.cache is not None:
            self.cache.close()

    async def health(self) -> dict[str, Any]:
        """The server's `/health` JSON.

        Raises:
            httpx.HTTPError: When the server cannot be reached or answers with an error status.
        """
        return await self._transport.health()

    async def lean_env(self) -> str | None:
        """The Lean environment id used in cache keys (asked from `/health` once), or None if the server is down."""
        if self._lean_env is None:
            await self._read_health()
        return self._lean_env

    async def lean_checks(self) -> bool:
        """Whether the target is checked in Lean by separate commands (asked from `/health` once when not set)."""
        if self._lean_checks is not None:
            return self._lean_checks
        if self._extensions is None:
            await self._read_health()
        supported = self._extensions is not None and EXTENSION in self._extensions
        if self._extensions is not None:
            self._lean_checks = supported
        if not supported and not self._warned_fallback:
            self._warned_fallback = True
            logger.warning(
                "%s does not run the checks in Lean (no %s in /health's extensions): falling back to `#print axioms` "
                "appended to the code; verdicts say lean_checks=False",
                self.url,
                EXTENSION,
            )
        return supported

    async def _read_health(self) -> None:
        try:
            health = await self.health()
        except Exception as exc:  # a down server only means: no cache (and no checks in Lean) this time
            logger.warning("cannot read %s/health (%s); verdict cache skipped for this call", self.url, exc)
            return
        extensions = health.get("extensions")
        self._extensions = frozenset(str(e) for e in extensions) if isinstance(extensions, list) else frozenset()
        if self._lean_env is None:
            found = health.get("lean_env") or health.get("lean_version")
            self._lean_env = str(found) if found else f"url:{self.url}"

    async def verify(
        self,
        items: Sequence[str | VerifyItem],
        *,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Verdict]:
        """Verify proofs; one verdict per item, in input order.

        Args:
            items: Lean code strings or `VerifyItem`s.
            progress: Called as `progress(done, total)` each time verdicts complete.

        Returns:
            The verdicts. Never raises for a server problem: those are `infra` verdicts.
        """
        total = len(items)
        verdicts: list[Verdict | None] = [None] * total
        checks: dict[int, CheckCode] = {}
        seen: dict[VerifyItem, CheckCode | Verdict] = {}  # groups of rollouts often repeat a proof
        in_lean = await self.lean_checks() if self.options.checks.print_axioms and items else False
        for i, item in enumerate(items):
            key = VerifyItem(item) if isinstance(item, str) else item
            prepared = seen.get(key)
            if prepared is None:
                prepared = seen[key] = self._prepare(key, in_lean)
            if isinstance(prepared, Verdict):
                verdicts[i] = prepared
            else:
                checks[i] = prepared
        done = total - len(checks)
        if progress is not None and done:
            progress(done, total)
        if checks:
            done = await self._verify_checks(checks, verdicts, done, progress)
        return [v if v is not None else Verdict.infra("no verdict") for v in verdicts]

    async def _verify_checks(
        self,
        checks: dict[int, CheckCode],
        verdicts: list[Verdict | None],
        done: int,
        progress: Callable[[int, int], None] | None,
    ) -> int:
        """Fill `verdicts` for the items that need Lean: cache, in-flight de-duplication, then the server."""
        total = len(verdicts)
        env = await self.lean_env()
        indices: dict[str, list[int]] = {}
        for i, check in checks.items():
            key = cache_key(check.text, env or "", infotree=self.options.checks.infotree, checks=_checks_json(check))
            indices.setdefault(key, []).append(i)
        hits: dict[str, ServerResult] = {}
        if self.cache is not None and env is not None:
            hits = await asyncio.to_thread(self.cache.get_many, list(indices))

        def settle(key: str, outcome: tuple[ServerResult, bool]) -> None:
            nonlocal done
            before = done
            for i in indices[key]:
                if verdicts[i] is None:
                    verdicts[i] = self._verdict(outcome, checks[i])
                    done += 1
            if progress is not None and done != before:
                progress(done, total)

        waiting: dict[str, asyncio.Future[tuple[ServerResult, bool]]] = {}
        jobs: list[_Job] = []
        loop = asyncio.get_running_loop()
        for key in indices:
            if key in hits:
                settle(key, (hits[key], True))
                continue
            future = self._inflight.get(key)
            if future is None:
                future = self._inflight[key] = loop.create_future()
                first = checks[indices[key][0]]
                jobs.append(_Job(key, first.text, first.checks.to_json() if first.checks else None, future))
            future.add_done_callback(functools.partial(_settle_from, settle, key))
            waiting[key] = future
        try:
            await self._send(jobs, env)
            await asyncio.gather(*waiting.values())
        finally:
            for job in jobs:
                if not job.future.done():
                    job.future.set_result((ServerResult.infra_failure("verification was cancelled"), False))
                self._inflight.pop(job.key, None)
        for key, future in waiting.items():
            settle(key, future.result())
        return done

    def _prepare(self, item: VerifyItem, lean_checks: bool) -> CheckCode | Verdict:
        # Text that cannot be encoded is a `text_encoding` violation: a verdict for this item, never an exception.
        code = LeanCode(item.code)
        violations = check_integrity(code, item.formal_statement, self.policy, theorem=item.theorem)
        if item.allow_sorry:
            violations = [v for v in violations if v.code not in SORRY_RULES]
        if violations:
            return Verdict.integrity(violations)
        return build_check_code(
            code,
            item.formal_statement,
            theorem=item.theorem,
            print_axioms=self.options.checks.print_axioms,
            lean_checks=lean_checks,
        )

    def _verdict(self, outcome: tuple[ServerResult, bool], check: CheckCode) -> Verdict:
        result, cached = outcome
        return verdict_from_result(
            result, check, policy=self.policy, positions=self.options.checks.positions, cached=cached
        )

    async def _send(self, jobs: list[_Job], env: str | None) -> None:
        size = self.options.limits.batch_size
        batches = [jobs[i : i + size] for i in range(0, len(jobs), size)]
        await asyncio.gather(*(self._run_batch(batch, env) for batch in batches))

    async def _run_batch(self, batch: list[_Job], env: str | None) -> None:
        try:
            await self._attempts(batch, env)
        except Exception as exc:  # a bug here must neither lose results nor leave waiters hanging
            logger.exception("verification batch failed")
            for job in batch:
                if not job.future.done():
                    job.future.set_result((ServerResult.infra_failure(f"client error: {exc!r}"), False))

    async def _attempts(self, batch: list[_Job], env: str | None) -> None:
        """Send one batch, retrying only the snippets that failed for infrastructure reasons."""
        pending = batch
        retries = self.options.retries
        for attempt in range(retries.count + 1):
            if attempt:
                delay = min(retries.max_backoff_s, retries.backoff_s * 2 ** (attempt - 1))
                await asyncio.sleep(delay * (0.5 + random.random() / 2))
            final = attempt == retries.count
            try:
                async with self._semaphore:
                    results = await self._transport.check(
                        [job.text for job in pending],
                        timeout=self.options.timeouts.lean_s,
                        infotree=self.options.checks.infotree,
                        checks=[job.checks for job in pending],
                    )
            except ServerRejectedError as exc:
                logger.error("%s", exc)
                results, final = [ServerResult.infra_failure(str(exc))] * len(pending), True
            retry: list[_Job] = []
            store: dict[str, ServerResult] = {}
            for job, result in zip(pending, results, strict=True):
                kind = result_kind(result)
                if kind is VerdictKind.INFRA and not final:
                    retry.append(job)
                    continue
                if kind is VerdictKind.INFRA:
                    logger.warning("giving up on a snippet after %d attempts: %s", attempt + 1, result.error)
                elif kind is not VerdictKind.TIMEOUT:
                    store[job.key] = result
                if not job.future.done():
                    job.future.set_result((result, False))
            if store and self.cache is not None and env is not None:
                await asyncio.to_thread(self.cache.put_many, store, lean_env=env)
            if not retry:
                return
            logger.info("retrying %d snippets after infrastructure failures (attempt %d)", len(retry), attempt + 2)
            pending = retry


def _checks_json(check: CheckCode) -> str:
    """The checks asked in Lean, as part of the cache key."""
    return json.dumps(check.checks.to_json(), sort_keys=True) if check.checks is not None else ""


def _settle_from(
    settle: Callable[[str, tuple[ServerResult, bool]], None],
    key: str,
    future: asyncio.Future[tuple[ServerResult, bool]],
) -> None:
    settle(key, future.result())


def verify_sync(
    items: Sequence[str | VerifyItem], options: VerifierOptions | None = None, **flat: Any
) -> list[Verdict]:
    """Verify proofs from synchronous code (scripts, notebooks): `Verifier(options).verify(items)`.

    Works inside a running event loop too (it then runs in a worker thread). The flat keywords of 0.4 (`url=`,
    `timeout=`, ...) still work, deprecated.
    """
    if flat:
        if options is not None:
            raise TypeError("pass either VerifierOptions or the deprecated flat keywords, not both")
        warn_flat(flat)
        options = VerifierOptions.from_flat(**flat)

    async def run() -> list[Verdict]:
        async with Verifier(options) as verifier:
            return await verifier.verify(items)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run())
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, run()).result()
