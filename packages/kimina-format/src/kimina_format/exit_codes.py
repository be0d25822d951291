"""The exit-code convention every kimina command line follows, so a script can tell failures apart.

| code | meaning                                                                                   |
|------|-------------------------------------------------------------------------------------------|
| 0    | done; a gate found nothing wrong                                                          |
| 1    | done, and the result is a failure (rows failed a gate, a run or a training step failed)   |
| 2    | bad usage or bad input: command line (argparse's own code), unreadable file, invalid config |
| 3    | a service the command needs is unavailable: verifier unreachable, preflight failed        |
| 130  | interrupted (Ctrl-C), as shells report SIGINT                                             |
"""

from __future__ import annotations

import sys
from enum import IntEnum
from typing import TextIO

__all__ = ["ExitCode", "fail"]


class ExitCode(IntEnum):
    """Exit codes shared by every kimina CLI (see the module docstring for when each applies)."""

    OK = 0
    FAILED = 1
    USAGE = 2
    UNAVAILABLE = 3
    INTERRUPTED = 130


def fail(prog: str, message: str, code: ExitCode = ExitCode.USAGE, *, stream: TextIO | None = None) -> int:
    """Print `prog: error: message` (argparse's layout) on stderr and return `code` for `main()` to return.

    Example:
        >>> import io
        >>> fail("kimina-format", "x.jsonl: no such file", stream=io.StringIO())
        2
    """
    out = sys.stderr if stream is None else stream
    out.write(f"{prog}: error: {message}\n")
    return int(code)
