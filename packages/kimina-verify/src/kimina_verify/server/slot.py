"""One REPL slot: keeps at most one REPL warm for a header and runs checks on it.

Every REPL failure (crash, hang, garbage, memory) becomes an outcome for the one check that was running. After each
snippet a follow-up command confirms the reply was the snippet's own (`followup`); a REPL out of step is replaced and
the snippet runs once more on a fresh one, so a REPL that an earlier snippet desynchronised costs nobody their
answer, and a snippet that desynchronises a fresh REPL twice gets an `integrity` error.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from kimina_verify.lean_checks import TargetFacts
from kimina_verify.server import outcome as texts
from kimina_verify.server.followup import StatementCache, checks_answer, confirm, statement_facts
from kimina_verify.server.job import CheckSpec
from kimina_verify.server.metrics import Metrics
from kimina_verify.server.outcome import CheckOutcome, classify
from kimina_verify.server.repl import (
    ReplCrashed,
    ReplError,
    ReplGarbage,
    ReplOutOfStep,
    ReplProcess,
    ReplStartError,
    ReplTimeout,
)
from kimina_verify.server.settings import MEMORY_RECYCLE_FRACTION, ServerSettings

logger = logging.getLogger(__name__)

# Internal outcome of one attempt whose REPL was out of step; never reaches a client (see `Slot._run`).
_OUT_OF_STEP = "out_of_step"


class Slot:
    """A place for one REPL process. The header runs once per process; each body runs in the header's env."""

    def __init__(
        self, index: int, settings: ServerSettings, metrics: Metrics, statements: StatementCache | None = None
    ) -> None:
        self.index = index
        self.settings = settings
        self.metrics = metrics
        self.statements = statements if statements is not None else StatementCache()
        self.repl: ReplProcess | None = None
        self.busy = False
        self.last_used = 0.0
        self._base_env: int | None = None
        self._header_failure: dict[str, Any] | None = None
        self._uses = 0
        self._closing = False
        self._retiring: set[asyncio.Task[None]] = set()
        # Whether the last attempt's REPL crashed while the snippet itself ran (not its header), and how.
        self._body_crashed = False
        self._crash_code: int | None = None
        self._crash_tail = ""

    @property
    def header(self) -> str | None:
        """The header of the live REPL, if there is one."""
        return self.repl.header if self.repl is not None else None

    async def run(self, spec: CheckSpec) -> CheckOutcome:
        """Run one check; never raises (a crash, hang or garbage fails this check and replaces the REPL)."""
        self.busy = True
        try:
            return await self._run(spec)
        finally:
            self.busy = False
            self.last_used = time.monotonic()

    async def warm(self, header: str) -> CheckOutcome | None:
        """Start a REPL for `header` ahead of time; returns the failure, if any."""
        self.busy = True
        try:
            return await self._ensure(CheckSpec(header=header, body="", timeout=self.settings.timeout))
        finally:
            self.busy = False
            self.last_used = time.monotonic()

    async def _run(self, spec: CheckSpec) -> CheckOutcome:
        outcome = await self._attempt(spec)
        if outcome.outcome == "crash" and self._body_crashed:
            # The REPL died while the snippet ran: an earlier snippet may have left it so, so try a fresh one. A
            # snippet that crashes a fresh REPL too (a stack overflow: exit 134) is the snippet's failure, and gets a
            # verdict of its own rather than `infra` on every retry of every caller.
            retry = await self._attempt(spec)
            if retry.outcome != "crash" or not self._body_crashed:
                return retry
            logger.warning("snippet crashed two fresh REPLs: %s", retry.error)
            return CheckOutcome.failed(
                "snippet_crash",
                texts.SNIPPET_CRASHED.format(code=self._crash_code, stderr=self._crash_tail),
                retry.time,
                repl_uuid=retry.repl_uuid,
            )
        if outcome.outcome != _OUT_OF_STEP:
            return outcome
        # The REPL that was out of step is gone; an earlier snippet may have caused it, so try a fresh one.
        retry = await self._attempt(spec)
        if retry.outcome != _OUT_OF_STEP:
            return retry
        logger.warning("snippet put two fresh REPLs out of step: %s", retry.error)
        return CheckOutcome.failed(
            "integrity", texts.OUT_OF_STEP.format(detail=retry.error), retry.time, repl_uuid=retry.repl_uuid
        )

    async def _attempt(self, spec: CheckSpec) -> CheckOutcome:
        self._body_crashed = False
        if self._closing:
            return CheckOutcome.failed("shutdown", texts.SHUTDOWN)
        failure = await self._ensure(spec)
        if failure is not None:
            return failure
        assert self.repl is not None and self._base_env is not None
        repl = self.repl
        if self._header_failure is not None:
            return CheckOutcome.from_reply(self._header_failure, 0.0, in_header=True, repl_uuid=repl.uuid)
        command: dict[str, Any] = {"cmd": spec.body, "env": self._base_env}
        if spec.infotree:
            command["infotree"] = spec.infotree
        started = time.monotonic()
        try:
            # The dataset statement's facts are read before the snippet runs on this REPL: code in the snippet that
            # takes the process over (reads its stdin, answers in its place) can then never answer for them.
            statement = await self._statement_facts(repl, spec)
            started = time.monotonic()
            reply = await repl.run(command, spec.timeout)
            elapsed = time.monotonic() - started
            checks = await self._follow_up(repl, reply, spec, statement)
        except ReplError as exc:
            self._body_crashed = isinstance(exc, ReplCrashed) and not exc.out_of_memory
            if isinstance(exc, ReplCrashed):
                tail = exc.stderr_tail.strip().splitlines()
                self._crash_code, self._crash_tail = exc.returncode, tail[-1][:500] if tail else "(no stderr)"
            return self._failed(exc, spec.timeout, time.monotonic() - started, repl)
        self._uses += 1
        memory = repl.memory_mb() if self.settings.max_repl_mem else None
        if memory is not None and memory > MEMORY_RECYCLE_FRACTION * self.settings.max_repl_mem:
            self._retire("memory")
        elif self.settings.max_repl_uses and self._uses >= self.settings.max_repl_uses:
            self._retire("uses")
        self.metrics.check_seconds.observe(elapsed)
        return CheckOutcome.from_reply(reply, elapsed, repl_uuid=repl.uuid, memory_mb=memory, checks=checks)

    async def _statement_facts(self, repl: ReplProcess, spec: CheckSpec) -> TargetFacts | None:
        """The dataset statement's facts (cached per header and statement), when the checks ask for them."""
        if spec.checks is None or spec.checks.statement is None:
            return None
        assert self._base_env is not None
        return await statement_facts(repl, self._base_env, spec.checks, self.statements, spec.timeout)

    async def _follow_up(
        self, repl: ReplProcess, reply: dict[str, Any], spec: CheckSpec, statement: TargetFacts | None
    ) -> dict[str, Any] | None:
        """Confirm the reply was the snippet's; run its checks when it elaborated cleanly and checks were asked for."""
        assert self._base_env is not None
        started = time.monotonic()
        env = reply.get("env")
        run_checks = spec.checks is not None and isinstance(env, int) and classify(reply) == "valid"
        target = await confirm(
            repl,
            env if isinstance(env, int) else self._base_env,
            spec.checks.theorem if run_checks and spec.checks is not None else None,
            spec.timeout,
        )
        if spec.checks is None:
            return None
        return checks_answer(target, statement if run_checks else None, started)

    async def _ensure(self, spec: CheckSpec) -> CheckOutcome | None:
        """Make sure a live REPL for the spec's header is here, importing the header if it is new."""
        if self.repl is not None and (self.repl.header != spec.header or spec.fresh or not self.repl.alive):
            self._retire("header_switch" if self.repl.alive else "died")
        if self.repl is not None:
            return None
        try:
            repl = await ReplProcess.start(
                self.settings.command,
                header=spec.header,
                cwd=self.settings.cwd,
                memory_limit_mb=self.settings.max_repl_mem,
                max_reply_bytes=self.settings.max_reply_bytes,
                jail=self.settings.jail,
            )
        except ReplStartError as exc:
            return CheckOutcome.failed("start_failed", texts.START_FAILED.format(detail=exc))
        self.metrics.repl_starts += 1
        # Registered before the import runs, so that a shutdown can kill a REPL that is still importing.
        self.repl, self._uses, self._base_env, self._header_failure = repl, 0, None, None
        started = time.monotonic()
        timeout = self.settings.import_timeout
        try:
            # Even an empty header gets its own env, so header-less snippets never see each other's declarations.
            reply = await repl.run({"cmd": spec.header}, timeout)
        except ReplTimeout as exc:
            if self._closing:
                return self._failed(exc, timeout, time.monotonic() - started, repl, header=True)
            self.repl = None
            self.metrics.restarts["timeout"] += 1
            return CheckOutcome.failed(
                "timeout", texts.HEADER_TIMEOUT.format(timeout=timeout), timeout, repl_uuid=repl.uuid
            )
        except ReplError as exc:
            return self._failed(exc, timeout, time.monotonic() - started, repl, header=True)
        self.metrics.import_seconds.observe(time.monotonic() - started)
        env = reply.get("env")
        if classify(reply) in ("repl_error", "lean_error") or not isinstance(env, int):
            logger.warning("header failed on REPL %s: %s", repl.uuid[:8], reply)
            self._header_failure, self._base_env = reply, -1
        else:
            self._base_env = env
        return None

    def _failed(
        self, exc: ReplError, timeout: float, elapsed: float, repl: ReplProcess, *, header: bool = False
    ) -> CheckOutcome:
        """The outcome for a REPL failure; the process is already dead, so forget it.

        Output out of step while a snippet ran is the snippet's doing; while the header ran, the REPL's.
        """
        if self.repl is repl:
            self.repl = None
        extra = {"repl_uuid": repl.uuid}
        if self._closing:
            self.metrics.restarts["shutdown"] += 1
            return CheckOutcome.failed("shutdown", texts.SHUTDOWN, elapsed, **extra)
        if isinstance(exc, ReplTimeout):
            self.metrics.restarts["timeout"] += 1
            return CheckOutcome.failed("timeout", texts.TIMEOUT.format(timeout=float(timeout)), timeout, **extra)
        if isinstance(exc, ReplCrashed) and exc.out_of_memory:
            self.metrics.restarts["memory"] += 1
            error = texts.OUT_OF_MEMORY.format(limit=self.settings.max_repl_mem)
            return CheckOutcome.failed("memory", error, elapsed, **extra)
        if isinstance(exc, ReplCrashed):
            self.metrics.restarts["crash"] += 1
            tail = exc.stderr_tail.strip().splitlines()
            error = texts.CRASHED.format(code=exc.returncode, stderr=tail[-1][:500] if tail else "(no stderr)")
            return CheckOutcome.failed("crash", error, elapsed, **extra)
        if isinstance(exc, ReplGarbage | ReplOutOfStep) and header:
            self.metrics.restarts["garbage"] += 1
            return CheckOutcome.failed("garbage", texts.GARBAGE.format(detail=exc), elapsed, **extra)
        if isinstance(exc, ReplGarbage | ReplOutOfStep):
            # Output that is not the answer to the command sent: only code the snippet ran can print it.
            self.metrics.restarts["out_of_step"] += 1
            return CheckOutcome.failed(_OUT_OF_STEP, f"{type(exc).__name__}: {exc}", elapsed, **extra)
        self.metrics.restarts["crash"] += 1
        return CheckOutcome.failed("crash", texts.CRASHED.format(code=None, stderr=str(exc)), elapsed, **extra)

    def _retire(self, reason: str) -> None:
        """Let the current REPL go: it exits in the background while this slot moves on."""
        repl, self.repl = self.repl, None
        if repl is None:
            return
        self.metrics.restarts[reason] += 1
        task = asyncio.create_task(repl.close())
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)

    def abort(self) -> None:
        """Kill the REPL now (shutdown): a check running on it fails with the shutdown error."""
        self._closing = True
        if self.repl is not None:
            self.repl.signal_kill()

    async def close(self) -> None:
        """Stop the REPL and wait for every REPL this slot let go."""
        self._closing = True
        repl, self.repl = self.repl, None
        if repl is not None:
            await repl.close(grace=1.0)
        if self._retiring:
            await asyncio.gather(*self._retiring, return_exceptions=True)
