"""The one error every package raises when the verification server cannot be used at all."""

from __future__ import annotations

__all__ = ["VerifierUnavailable"]


class VerifierUnavailable(RuntimeError):
    """The verification server cannot be reached, or kept failing for the whole retry budget; the message names it.

    Infrastructure, never a proof failure: callers stop (training, an evaluation, a data build) rather than score
    anything 0. The command lines exit with `kimina_format.exit_codes.ExitCode.UNAVAILABLE` (3) on it.
    """
