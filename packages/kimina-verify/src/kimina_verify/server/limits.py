"""Reading a request body under a size limit and a read timeout, so that a client can neither flood nor stall a server.

A declared `Content-Length` over the limit is refused before anything is read; a chunked body is cut off with the
same 413 as soon as it passes the limit; a client that stops sending in the middle of its body gets 408.
"""

from __future__ import annotations

import asyncio

from kimina_format.extras import missing_extra

__all__ = ["read_body", "too_large"]

try:
    from fastapi import HTTPException, Request
except ImportError as _missing:  # `pip install kimina-verify` leaves the web stack out
    raise missing_extra("kimina-verify", "server", "the verification server", _missing) from _missing

# A stalled body will not arrive: the connection is closed with the 408. After a 413 (or a 401, which comes before the
# body is read) uvicorn reads and drops the rest, so the client can finish sending and read the answer; the connection
# guard (`connections.py`) bounds how long that may take.
_CLOSE = {"Connection": "close"}


def too_large(limit: int) -> HTTPException:
    """The 413 for a body over `limit` bytes."""
    return HTTPException(413, f"the request body is larger than this server's limit of {limit} bytes")


async def read_body(request: Request, *, max_bytes: int, read_timeout: float) -> bytes:
    """The whole body of `request`, read as it arrives.

    Raises:
        HTTPException: 413 when the body is (or says it is) over `max_bytes`; 408 when `read_timeout` seconds pass
            without a byte of it; 499 when the client goes away first.
    """
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise too_large(max_bytes)
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            async with asyncio.timeout(read_timeout):
                message = await request.receive()
        except TimeoutError:
            raise HTTPException(
                408, f"the request body stopped arriving: nothing for {read_timeout:g} s", headers=_CLOSE
            ) from None
        if message["type"] == "http.disconnect":
            raise HTTPException(499, "the client closed the connection before its body arrived")
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > max_bytes:
            raise too_large(max_bytes)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)
