"""API-key authentication: when a key is configured, `/v1/*` needs it as a bearer token or an `X-API-Key` header.

The key is checked by the prove route's guard before a byte of the body is read (`check_api_key`); the dependency
repeats it so that the OpenAPI schema documents both ways to send it.
"""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

__all__ = ["check_api_key", "require_api_key"]

# auto_error=False: a missing header is our 401 with a reason, and both schemes show up in the OpenAPI docs.
_bearer = HTTPBearer(auto_error=False, description="`Authorization: Bearer <key>`")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="`X-API-Key: <key>`")


def check_api_key(request: Request) -> None:
    """Let the request through when no key is configured or its headers carry the right one.

    Raises:
        HTTPException: 401 with the reason.
    """
    expected = request.app.state.settings.api_key
    if expected is None:
        return
    given = request.headers.get("x-api-key")
    if not given:
        scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
        given = credentials.strip() if scheme.lower() == "bearer" else ""
    if not given:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            detail="this server needs an API key: send `Authorization: Bearer <key>` or `X-API-Key: <key>`",
            headers={"WWW-Authenticate": "Bearer"},
        )
    # Constant-time comparison, so response timing does not leak the key.
    if not secrets.compare_digest(given.encode(), expected.get_secret_value().encode()):
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, detail="the API key is not valid", headers={"WWW-Authenticate": "Bearer"}
        )


async def require_api_key(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    header_key: Annotated[str | None, Depends(_header)],
) -> None:
    """`check_api_key` as a dependency; the two header parameters only document the schemes."""
    check_api_key(request)
