"""Goals before an error, read from the Lean REPL's infotree when the server returned one."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["Position", "goals_before"]

Position = tuple[int, int]


def _nodes(tree: Any) -> Iterator[Mapping[str, Any]]:
    stack = list(tree) if isinstance(tree, list) else [tree]
    while stack:
        item = stack.pop()
        if not isinstance(item, Mapping):
            continue
        node = item.get("node")
        if isinstance(node, Mapping):
            yield node
        children = item.get("children")
        if isinstance(children, list):
            stack.extend(children)


def _range(node: Mapping[str, Any]) -> tuple[Position, Position] | None:
    try:
        rng = node["stx"]["range"]
        start, finish = rng["start"], rng["finish"]
        return (int(start["line"]), int(start["column"])), (int(finish["line"]), int(finish["column"]))
    except (KeyError, TypeError, ValueError):
        return None


def goals_before(infotree: Any, line: int, column: int) -> str | None:
    """The goals before the innermost tactic whose source range contains (line, column), or None.

    Args:
        infotree: The `infotree` value of a REPL response (a list of `{"node", "kind", "children"}` objects).
        line: 1-based line, in the REPL's coordinates.
        column: 0-based column.

    Returns:
        The goals joined by blank lines, or None when no tactic with goals covers the position.
    """
    best: tuple[tuple[int, int], list[str]] | None = None
    where = (line, column)
    for node in _nodes(infotree):
        goals = node.get("goalsBefore")
        rng = _range(node)
        if not goals or rng is None or not (rng[0] <= where <= rng[1]):
            continue
        size = (rng[1][0] - rng[0][0], rng[1][1] - rng[0][1])
        if best is None or size < best[0]:
            best = (size, [str(g) for g in goals])
    return "\n\n".join(best[1]) if best else None
