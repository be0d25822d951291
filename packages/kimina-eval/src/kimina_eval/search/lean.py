"""What the search asks of Lean: verify proofs (with the integrity rules), and elaborate statements with `sorry`.

Proofs go through kimina-verify's `Verifier`. A statement check sends ``statement := by sorry`` on purpose, which the
Verifier's integrity rules would reject before Lean sees it, so those snippets go to the same server directly and are
read with `kimina_verify.verdict_from_result`; a statement that elaborates comes back as ``sorry``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Protocol

from kimina_verify import Verdict, Verifier, VerifyItem, build_check_code, verdict_from_result
from kimina_verify.transport import ServerRejectedError, Transport


class LeanBackend(Protocol):
    """The two Lean services a search needs; `ServerBackend` provides them from a verification server."""

    async def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        """Verify proofs with the integrity rules; one verdict per item, in order, ``infra`` on server trouble."""
        ...

    async def elaborate(self, codes: Sequence[str]) -> list[Verdict]:
        """Run code through Lean without integrity rules (it may hold ``sorry``); one verdict per code, in order."""
        ...


class ServerBackend:
    """`LeanBackend` on a kimina-lean-server-compatible server, through an open `Verifier`.

    Args:
        verifier: The verifier for proofs; statement checks use its URL, time limit and batch size.
        api_key: The server's API key (default ``$LEAN_SERVER_API_KEY``, as for the Verifier).
    """

    def __init__(self, verifier: Verifier, api_key: str | None = None) -> None:
        self.verifier = verifier
        key = api_key or os.environ.get("LEAN_SERVER_API_KEY") or os.environ.get("LEANSERVER_API_KEY")
        self._transport = Transport(verifier.url, key, http_timeout=verifier.timeout * verifier.batch_size + 60.0)

    async def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        """Verify proofs with the Verifier (integrity rules, cache, retries)."""
        return await self.verifier.verify(items)

    async def elaborate(self, codes: Sequence[str]) -> list[Verdict]:
        """Check code as it is, ``sorry`` allowed, without ``#print axioms``; transport failures become ``infra``."""
        checks = [build_check_code(code, print_axioms=False) for code in codes]
        verdicts: list[Verdict] = []
        size = self.verifier.batch_size
        for start in range(0, len(checks), size):
            batch = checks[start : start + size]
            try:
                results = await self._transport.check([c.text for c in batch], timeout=self.verifier.timeout)
            except ServerRejectedError as error:
                verdicts += [Verdict.infra(str(error))] * len(batch)
                continue
            verdicts += [verdict_from_result(r, c) for r, c in zip(results, batch, strict=True)]
        return verdicts

    async def aclose(self) -> None:
        """Close the statement checks' connection pool (the Verifier is closed by its owner)."""
        await self._transport.aclose()
