"""After each snippet: one more REPL command that proves the reply was the snippet's, and the checks asked for.

The command carries a fresh nonce (`lean_checks.check_command`): if code in the snippet printed a forged reply, the
driver read that as the snippet's and now reads the snippet's real reply where the nonce should be, so the REPL is
out of step and is replaced. With a `kimina_checks` request it also reads the target constant (kind, type, axioms) in
the snippet's environment, and the dataset statement's type in the header's own environment (cached per header and
statement: the server's Lean environment does not change while it runs).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import OrderedDict
from typing import Any

from kimina_verify.lean_checks import ChecksRequest, TargetFacts, check_command, nonce_seen, read_facts
from kimina_verify.server.repl import ReplOutOfStep, ReplProcess

__all__ = ["ANSWER_VERSION", "StatementCache", "checks_answer", "confirm", "statement_facts"]

ANSWER_VERSION = 1


class _ElaborationFailed(Exception):
    """The REPL elaborating a statement others wait for failed; they elaborate it themselves."""


class StatementCache:
    """Dataset statements' facts by (header, theorem, statement text), least recently used dropped first.

    The samples of one prompt arrive together: while one REPL elaborates a statement, others asking for it wait for
    that answer (`pending`) instead of elaborating it again.
    """

    def __init__(self, max_entries: int = 4096) -> None:
        self.max_entries = max_entries
        self._facts: OrderedDict[tuple[str, str, str], TargetFacts] = OrderedDict()
        self.pending: dict[tuple[str, str, str], asyncio.Future[TargetFacts]] = {}

    def get(self, key: tuple[str, str, str]) -> TargetFacts | None:
        """The cached facts for `key`, if any."""
        facts = self._facts.get(key)
        if facts is not None:
            self._facts.move_to_end(key)
        return facts

    def put(self, key: tuple[str, str, str], facts: TargetFacts) -> None:
        """Remember `facts` (only facts from a reply that was in step are ever stored)."""
        self._facts[key] = facts
        self._facts.move_to_end(key)
        while len(self._facts) > self.max_entries:
            self._facts.popitem(last=False)


async def confirm(repl: ReplProcess, env: int, theorem: str | None, timeout: float) -> TargetFacts | None:
    """Run the nonce command (and the checks of `theorem`) in `env`; return the facts about `theorem`.

    Raises:
        ReplOutOfStep: The reply does not carry the nonce (the process has been killed).
        ReplError: Any other REPL failure (timeout, crash, garbage).
    """
    command = check_command(secrets.token_hex(8), theorem)
    reply = await repl.run({"cmd": command.text, "env": env}, timeout)
    if not nonce_seen(reply, command):
        await repl.kill()
        raise ReplOutOfStep("the reply to the check command does not carry its nonce")
    return read_facts(reply, command, theorem) if theorem is not None else None


async def statement_facts(
    repl: ReplProcess, base_env: int, checks: ChecksRequest, cache: StatementCache, timeout: float
) -> TargetFacts:
    """The dataset statement's facts: elaborated in the header's environment, then read by the check command."""
    assert checks.statement is not None
    key = (repl.header, checks.theorem, checks.statement)
    cached = cache.get(key)
    if cached is not None:
        return cached
    elsewhere = cache.pending.get(key)
    if elsewhere is not None:
        with contextlib.suppress(_ElaborationFailed):  # that REPL failed: elaborate it here
            return await asyncio.shield(elsewhere)
    future: asyncio.Future[TargetFacts] = asyncio.get_running_loop().create_future()
    cache.pending[key] = future
    try:
        facts = await _elaborate(repl, base_env, checks, timeout)
    except BaseException:
        future.set_exception(_ElaborationFailed())
        future.exception()  # retrieved, so that nobody waiting is no error
        raise
    finally:
        if cache.pending.get(key) is future:
            del cache.pending[key]
    future.set_result(facts)
    cache.put(key, facts)
    return facts


async def _elaborate(repl: ReplProcess, base_env: int, checks: ChecksRequest, timeout: float) -> TargetFacts:
    assert checks.statement is not None
    reply = await repl.run({"cmd": checks.statement, "env": base_env}, timeout)
    errors = [str(m.get("data", "")) for m in reply.get("messages") or () if m.get("severity") == "error"]
    env = reply.get("env")
    if "message" in reply or errors or not isinstance(env, int):
        detail = str(reply.get("message") or (errors[0] if errors else "no environment"))
        facts = TargetFacts(checks.theorem, errors=(f"the formal statement does not elaborate: {detail}",))
        await confirm(repl, base_env, None, timeout)
    else:
        found = await confirm(repl, env, checks.theorem, timeout)
        assert found is not None
        facts = found
    return facts


def checks_answer(target: TargetFacts | None, statement: TargetFacts | None, started: float) -> dict[str, Any]:
    """The result field answering a `kimina_checks` request (facts are None when the snippet itself failed)."""
    return {
        "version": ANSWER_VERSION,
        "target": target.to_json() if target is not None else None,
        "statement": statement.to_json() if statement is not None else None,
        "time": round(time.monotonic() - started, 6),
    }
