"""HTTP inference API that proves Lean 4 theorems: generate, verify, fix, with a playground page.

`create_app(settings)` builds the FastAPI app (`Settings` reads `KIMINA_API_*`).
"""

from __future__ import annotations

from importlib.metadata import version as _version
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kimina_api.app import create_app
    from kimina_api.settings import Settings

__version__ = _version("kimina-api")

# Loaded on first use, so `import kimina_api` (and `--version`) stays fast.
_LAZY = {
    "create_app": "kimina_api.app",
    "Settings": "kimina_api.settings",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'kimina_api' has no attribute {name!r}")


__all__ = ["Settings", "__version__", "create_app"]
