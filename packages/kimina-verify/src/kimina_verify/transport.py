"""HTTP transport to a kimina-lean-server: one batch in, one `ServerResult` per snippet out, in order.

Requests are built with kimina-client's models (`CheckRequest`, `Snippet`; `VerifyRequestBody` for v1 servers that
only have `/verify`). Responses are read leniently into `ServerResult`s (see `ServerResult.from_json`). kimina-client's
own HTTP client is not used because it retries every HTTP error blindly (401 and 429 included) and turns failures
into strings; here transport failures become results flagged `infra`, and non-retryable ones raise.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import httpx

from kimina_verify.lean_checks import FIELD
from kimina_verify.result import ServerResult

__all__ = ["Protocol", "ServerRejectedError", "Transport"]

logger = logging.getLogger(__name__)

Protocol = Literal["auto", "v2", "v1"]


class ServerRejectedError(Exception):
    """The server refused the request in a way retrying cannot fix (bad API key, malformed request)."""


class Transport:
    """A pooled async HTTP client for `/api/check` (v2) or `/verify` (v1) and `/health`.

    Args:
        url: Server base URL.
        api_key: Sent as `Authorization: Bearer <key>` when given.
        http_timeout: Seconds to wait for one HTTP response.
        max_connections: Connection pool size.
        protocol: `v2`, `v1`, or `auto` (v2, falling back to v1 when `/api/check` answers 404).
    """

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        http_timeout: float = 600.0,
        max_connections: int = 16,
        protocol: Protocol = "auto",
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.url = url.rstrip("/")
        self.protocol: Protocol = protocol
        self._client = httpx.AsyncClient(
            base_url=self.url,
            headers=headers,
            timeout=httpx.Timeout(http_timeout, connect=min(http_timeout, 10.0)),
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
        )

    async def health(self) -> dict[str, Any]:
        """GET `/health` and return its JSON object (raises `httpx.HTTPError` when the server is unreachable)."""
        response = await self._client.get("/health")
        response.raise_for_status()
        data = response.json()
        return dict(data) if isinstance(data, Mapping) else {"status": data}

    async def check(
        self,
        codes: Sequence[str],
        *,
        timeout: float,
        infotree: str | None = None,
        checks: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> list[ServerResult]:
        """Check a batch of snippets; always returns one result per code, in order.

        `checks` gives each snippet's `kimina_checks` request (v2 only; servers without the extension ignore it).
        Transport failures, HTTP 429/5xx, unreadable bodies and missing results become `infra` results.

        Raises:
            ServerRejectedError: For HTTP 401/403 (API key) and 4xx request errors, which retrying cannot fix.
        """
        if self.protocol != "v1":
            results = await self._post_v2(codes, timeout, infotree, checks)
            if results is not None:
                return results
            logger.warning("%s has no /api/check; falling back to the v1 /verify endpoint", self.url)
            self.protocol = "v1"
        return await self._post_v1(codes, timeout, infotree)

    async def _post_v2(
        self,
        codes: Sequence[str],
        timeout: float,
        infotree: str | None,
        checks: Sequence[Mapping[str, Any] | None] | None,
    ) -> list[ServerResult] | None:
        from kimina_client.models import CheckRequest, Infotree, Snippet

        request = CheckRequest(
            snippets=[Snippet(id=str(i), code=code) for i, code in enumerate(codes)],
            timeout=max(1, round(timeout)),
            infotree=Infotree(infotree) if infotree else None,
        )
        payload = request.model_dump(mode="json", exclude_none=True)
        for snippet, asked in zip(payload["snippets"], checks or (), strict=False):
            if asked is not None:
                snippet[FIELD] = dict(asked)
        status, body = await self._post("/api/check", payload, len(codes))
        if status == 404 and self.protocol == "auto":
            return None
        return self._read(status, body, len(codes), id_field="id")

    async def _post_v1(self, codes: Sequence[str], timeout: float, infotree: str | None) -> list[ServerResult]:
        from kimina_client.models import Code, Infotree, VerifyRequestBody

        request = VerifyRequestBody(
            codes=[Code(custom_id=str(i), proof=code) for i, code in enumerate(codes)],
            timeout=max(1, round(timeout)),
            infotree_type=Infotree(infotree) if infotree else None,
        )
        status, body = await self._post("/verify", request.model_dump(mode="json", exclude_none=True), len(codes))
        return self._read(status, body, len(codes), id_field="custom_id")

    async def _post(self, path: str, payload: dict[str, Any], n: int) -> tuple[int, Any]:
        """POST and return (status, parsed JSON or an error string); status 0 means no HTTP answer."""
        try:
            response = await self._client.post(path, json=payload)
        except httpx.TimeoutException as exc:
            return 0, f"HTTP timeout talking to {self.url}: {type(exc).__name__}"
        except httpx.HTTPError as exc:
            return 0, f"cannot reach {self.url}: {type(exc).__name__}: {exc}"
        if response.status_code in (401, 403):
            raise ServerRejectedError(f"{self.url} refused the API key (HTTP {response.status_code}): {response.text}")
        try:
            body = response.json()
        except ValueError:
            body = response.text[:200]
        if 400 <= response.status_code < 500 and response.status_code not in (404, 408, 429):
            raise ServerRejectedError(f"{self.url}{path} rejected a batch of {n} (HTTP {response.status_code}): {body}")
        return response.status_code, body

    def _read(self, status: int, body: Any, n: int, *, id_field: str) -> list[ServerResult]:
        if status != 200:
            detail = body if status == 0 else f"HTTP {status} from {self.url}: {body}"
            return [ServerResult.infra_failure(str(detail))] * n
        items = body.get("results") if isinstance(body, Mapping) else None
        if not isinstance(items, list):
            return [ServerResult.infra_failure(f"unreadable response from {self.url}: {str(body)[:200]}")] * n
        by_id = {str(item.get(id_field)): item for item in items if isinstance(item, Mapping)}
        missing = ServerResult.infra_failure(f"{self.url} returned no result for this snippet")
        return [ServerResult.from_json(by_id[str(i)]) if str(i) in by_id else missing for i in range(n)]

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()
