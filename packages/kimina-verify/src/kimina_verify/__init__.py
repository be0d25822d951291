"""Lean 4 verification for prover training: code assembly, integrity rules, verdicts, feedback, client and server.

The async client (`Verifier`, `verify_sync`, `VerifyItem`) is loaded on first use, so `import kimina_verify` and the
static checks stay fast.
"""

from __future__ import annotations

from importlib.metadata import version as _version
from typing import TYPE_CHECKING

from kimina_format.lazy import lazy_exports

from kimina_verify.assembly import CheckCode, build_check_code
from kimina_verify.code import Declaration, LeanCode, normalize_imports
from kimina_verify.errors import VerifierUnavailable
from kimina_verify.feedback import render_feedback
from kimina_verify.header import check_header, statement_header
from kimina_verify.integrity import IntegrityPolicy, IntegrityViolation, check_integrity
from kimina_verify.options import Checks, Endpoint, Limits, Retries, Timeouts, VerifierOptions
from kimina_verify.result import ServerResult
from kimina_verify.verdict import LeanMessage, Verdict, VerdictKind, verdict_from_result

if TYPE_CHECKING:
    from kimina_verify.cache import VerdictCache
    from kimina_verify.client import Verifier, VerifyItem, verify_sync

__version__ = _version("kimina-verify")

_LAZY = {
    "Verifier": "kimina_verify.client",
    "VerifyItem": "kimina_verify.client",
    "verify_sync": "kimina_verify.client",
    "VerdictCache": "kimina_verify.cache",
}

# Renamed in 0.5 (one name per concept across the workspace); the old names warn and still work.
_DEPRECATED = {"Violation": ("kimina_verify", "IntegrityViolation")}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, deprecated=_DEPRECATED)


__all__ = [
    "CheckCode",
    "Checks",
    "Declaration",
    "Endpoint",
    "IntegrityPolicy",
    "IntegrityViolation",
    "LeanCode",
    "LeanMessage",
    "Limits",
    "Retries",
    "ServerResult",
    "Timeouts",
    "Verdict",
    "VerdictCache",
    "VerdictKind",
    "Verifier",
    "VerifierOptions",
    "VerifierUnavailable",
    "VerifyItem",
    "__version__",
    "build_check_code",
    "check_header",
    "check_integrity",
    "normalize_imports",
    "render_feedback",
    "statement_header",
    "verdict_from_result",
    "verify_sync",
]
