"""Train/validation split by problem, so that a problem and its variants never sit on both sides."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from kimina_data.schema import column

__all__ = ["split_by_problem"]

if TYPE_CHECKING:
    import datasets


def _unit(seed: int, group: str) -> float:
    """A stable pseudo-random number in [0, 1) for a group: the same across runs, machines and row orders."""
    digest = hashlib.blake2b(f"{seed}\0{group}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def split_by_problem(
    table: datasets.Dataset, *, val_fraction: float, seed: int = 0
) -> tuple[datasets.Dataset, datasets.Dataset]:
    """Split into (train, validation), about `val_fraction` of the problems in validation.

    A problem's group is its `variant_of` (for generated variants) or its own `uid`; the whole group goes to one
    side. Assignment hashes the group with `seed`, so adding rows later never moves an existing problem across.
    """
    if not 0.0 <= val_fraction < 1.0:
        raise ValueError(f"val_fraction must be in [0, 1), got {val_fraction}")
    uids, origins = column(table, "uid"), column(table, "variant_of")
    groups = (v if v is not None else u for u, v in zip(uids, origins, strict=True))
    to_val = [_unit(seed, g) < val_fraction for g in groups]
    train = [i for i, v in enumerate(to_val) if not v]
    val = [i for i, v in enumerate(to_val) if v]
    return table.select(train, keep_in_memory=True), table.select(val, keep_in_memory=True)
