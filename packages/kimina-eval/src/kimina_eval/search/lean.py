"""What the search asks of Lean: verify proofs (with the integrity rules), and elaborate statements with `sorry`.

Both go through kimina-verify's `Verifier` (cache, de-duplication, retries). A statement check sends
``statement := by sorry`` on purpose, as a `VerifyItem` with ``allow_sorry=True``: a statement that elaborates comes
back as ``sorry``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from kimina_verify import Verdict, Verifier, VerifyItem

__all__ = ["LeanBackend", "ServerBackend"]


class LeanBackend(Protocol):
    """The two Lean services a search needs; `ServerBackend` provides them from a verification server."""

    async def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        """Verify proofs with the integrity rules; one verdict per item, in order, ``infra`` on server trouble."""
        ...

    async def elaborate(self, codes: Sequence[str]) -> list[Verdict]:
        """Run code through Lean with ``sorry`` allowed; one verdict per code, in order."""
        ...


class ServerBackend:
    """`LeanBackend` on a kimina-lean-server-compatible server, through an open `Verifier` (closed by its owner).

    Args:
        verifier: The verifier for proofs and statement checks.
    """

    def __init__(self, verifier: Verifier) -> None:
        self.verifier = verifier

    async def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        """Verify proofs with the Verifier (integrity rules, cache, retries)."""
        return await self.verifier.verify(items)

    async def elaborate(self, codes: Sequence[str]) -> list[Verdict]:
        """Check code with ``sorry`` allowed (every other integrity rule applies); server failures are ``infra``."""
        return await self.verifier.verify([VerifyItem(code, allow_sorry=True) for code in codes])
