"""The verification server: a pool of Lean REPLs behind the kimina-lean-server v2 HTTP API.

Importing this package is cheap; the app itself (FastAPI, kimina-client models) loads with `create_app`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kimina_verify.server.settings import ServerSettings

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["ServerSettings", "create_app"]


def create_app(settings: ServerSettings) -> FastAPI:
    """Build the FastAPI app for `settings` (see `kimina_verify.server.app`)."""
    from kimina_verify.server.app import create_app as _create_app

    return _create_app(settings)
