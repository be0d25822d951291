"""The playground: a single HTML page at `/` (with its script and miniF2F examples) that calls `/v1/prove`."""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from fastapi import APIRouter
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["page", "router", "static_files"]

router = APIRouter(include_in_schema=False)


@cache
def _page() -> str:
    return (files("kimina_api") / "static" / "index.html").read_text(encoding="utf-8")


@router.get("/", response_class=HTMLResponse)
async def page() -> HTMLResponse:
    """The playground page."""
    return HTMLResponse(_page(), headers={"Cache-Control": "no-cache"})


def static_files() -> StaticFiles:
    """The page's script, stylesheet and examples, served from the package (mounted at `/playground`)."""
    return StaticFiles(packages=[("kimina_api", "static")])
