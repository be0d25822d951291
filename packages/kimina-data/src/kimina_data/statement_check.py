"""Statement check of generated variants: `statement + sorry` must elaborate in Lean and come back as `sorry`.

A `lean_error` means the model wrote a statement Lean does not accept, so no proof could ever be rewarded.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
from collections import Counter
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from kimina_verify.errors import VerifierUnavailable

from kimina_data.report import CheckStats
from kimina_data.schema import Rejection, column
from kimina_data.variants.step import ProgressHook

__all__ = [
    "StatementCheck",
    "check_statements",
    "sorry_snippet",
    "statement_check_from_options",
    "statement_check_from_url",
]

if TYPE_CHECKING:
    import datasets
    from kimina_verify.options import VerifierOptions

log = logging.getLogger(__name__)

StatementCheck = Callable[[list[str]], list[str]]
"""Checks Lean snippets; returns one verdict kind per snippet, in order (`sorry`, `lean_error`, `timeout`, ...)."""

_BATCH = 64


def sorry_snippet(header: str, statement: str) -> str:
    """The code sent to Lean for a statement: header, statement, and `sorry` as its proof."""
    return f"{header}{statement}\n  sorry\n"


def check_statements(
    table: datasets.Dataset, check: StatementCheck, *, progress: ProgressHook | None = None
) -> tuple[datasets.Dataset, list[Rejection], CheckStats]:
    """Keep the rows whose `header + formal_statement + sorry` Lean reports as `sorry`.

    Other verdicts drop the row with reason `check_<kind>`: `check_lean_error` (the statement does not elaborate),
    `check_integrity` (it breaks one of kimina-verify's integrity rules, so no proof of it could be rewarded),
    `check_timeout`, `check_infra` (the server failed; the row is dropped rather than kept unchecked, and a rerun
    checks it again at no Gemini cost).
    """
    headers, statements = column(table, "header"), column(table, "formal_statement")
    snippets = [sorry_snippet(h, s) for h, s in zip(headers, statements, strict=True)]
    kinds: list[str] = []
    for start in range(0, len(snippets), _BATCH):
        batch = snippets[start : start + _BATCH]
        verdicts = check(batch)
        if len(verdicts) != len(batch):
            raise RuntimeError(f"statement check returned {len(verdicts)} verdicts for {len(batch)} snippets")
        kinds.extend(str(v) for v in verdicts)
        if progress:
            progress("statement check", len(kinds), len(snippets))
    keep = [i for i, kind in enumerate(kinds) if kind == "sorry"]
    rejections = [
        Rejection(
            "statement_check",
            table[i]["data_source"],
            -1,
            table[i]["uid"],
            f"check_{kind}",
            f"`statement + sorry` came back as {kind}, not sorry",
            table[i],
        )
        for i, kind in enumerate(kinds)
        if kind != "sorry"
    ]
    stats = CheckStats(
        checked=len(kinds), kept=len(keep), dropped=dict(Counter(r.reason for r in rejections).most_common())
    )
    if rejections:
        log.warning("statement check dropped %d of %d variants: %s", len(rejections), len(kinds), stats.dropped)
    return table.select(keep, keep_in_memory=True), rejections, stats


VerificationServerError = VerifierUnavailable
"""Deprecated alias of `kimina_verify.VerifierUnavailable` (the same class), kept for kimina-data 0.3 callers."""


def statement_check_from_url(
    url: str | None, api_key: str | None = None, *, timeout: float = 60.0, retries: int = 2
) -> StatementCheck | None:
    """A `StatementCheck` backed by the kimina-verify (or kimina-lean-server) server at `url`.

    The same as `statement_check_from_options` with those options (`retries` from 2 s); `url` defaults to
    `$LEAN_SERVER_API_URL` and `api_key` to `$LEAN_SERVER_API_KEY`; with neither a URL nor the variable, returns None.
    """
    from kimina_verify.options import Endpoint, Retries, Timeouts, VerifierOptions

    options = VerifierOptions(Endpoint(url, api_key), Timeouts(lean_s=timeout), Retries(count=retries, backoff_s=2.0))
    return statement_check_from_options(options)


def statement_check_from_options(options: VerifierOptions) -> StatementCheck | None:
    """A `StatementCheck` through a `kimina_verify.Verifier` built with `options` (`BuildConfig.verifier`), passed whole.

    An unset `endpoint.url` reads `$LEAN_SERVER_API_URL` (and the key `$LEAN_SERVER_API_KEY`), as kimina-verify's
    client does; with neither, returns None (no check). Snippets are verified with `allow_sorry=True`: kimina-verify's
    integrity rules apply except those against `sorry` (a statement that breaks one comes back as `integrity`), and
    its de-duplication and retries (`options.retries`, infrastructure failures only) too.

    Raises:
        VerifierUnavailable: When the check runs and the server does not answer `/health`.
    """
    if not (options.endpoint.url or os.environ.get("LEAN_SERVER_API_URL")):
        return None

    def check(snippets: list[str]) -> list[str]:
        return _run(_check(options, snippets))

    return check


async def _check(options: VerifierOptions, snippets: list[str]) -> list[str]:
    import httpx
    from kimina_verify import Verifier, VerifyItem

    async with Verifier(options) as verifier:
        try:
            await verifier.health()
        except httpx.HTTPError as e:
            raise VerifierUnavailable(
                f"verification server {options.endpoint.resolved_url()} does not answer ({e}); start it, or build "
                "without verifier.endpoint.url (and $LEAN_SERVER_API_URL) to skip the statement check"
            ) from e
        # The snippet is its own formal statement: the statement's context (instances, definitions) is then allowed,
        # exactly as when its proofs are verified later.
        items = [VerifyItem(snippet, formal_statement=snippet, allow_sorry=True) for snippet in snippets]
        return [verdict.kind.value for verdict in await verifier.verify(items)]


def _run(coroutine: Coroutine[Any, Any, list[str]]) -> list[str]:
    """Run a coroutine to completion from synchronous code, even when an event loop is already running here."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
