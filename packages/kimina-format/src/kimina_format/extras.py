"""One wording for "this feature needs an optional extra", so every package names the same two install commands."""

from __future__ import annotations

__all__ = ["missing_extra"]


def missing_extra(distribution: str, extra: str, feature: str, cause: BaseException | None = None) -> ImportError:
    """The ImportError to raise when `feature` needs `distribution[extra]` and it is not installed.

    Raise it `from` the original ImportError so the missing module stays visible in the traceback.

    Example:
        >>> str(missing_extra("kimina-verify", "server", "the verification server"))  # doctest: +ELLIPSIS
        "the verification server needs the 'server' extra: pip install 'kimina-verify[server]' (in a kimina ...
    """
    missing = f" ({cause})" if cause is not None else ""
    error = ImportError(
        f"{feature} needs the {extra!r} extra: pip install '{distribution}[{extra}]' "
        f"(in a kimina checkout: uv sync --all-packages --extra {extra}){missing}"
    )
    error.name = getattr(cause, "name", None)
    return error
