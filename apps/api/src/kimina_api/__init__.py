"""HTTP inference API that proves Lean 4 theorems: generate, verify, fix, with a playground page.

`create_app(settings)` builds the FastAPI app (`Settings` reads `KIMINA_API_*`).
"""

from __future__ import annotations

from importlib.metadata import version as _version
from typing import TYPE_CHECKING

from kimina_format.lazy import lazy_exports

if TYPE_CHECKING:
    from kimina_api.app import create_app
    from kimina_api.settings import Settings

__version__ = _version("kimina-api")

# Loaded on first use, so `import kimina_api` (and `--version`) stays fast.
_LAZY = {
    "create_app": "kimina_api.app",
    "Settings": "kimina_api.settings",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = ["Settings", "__version__", "create_app"]
