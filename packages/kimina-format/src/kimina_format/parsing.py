"""Split a completion into its thinking, the tactic blocks inside it and the final Lean block, with spans.

Parsing never fails: whatever the input (CRLF, unclosed fences, no tags, a megabyte of backticks), it returns a
`Completion` that describes what is there, and the rules in `kimina_format.rules` decide what is wrong with it.
All scans are single passes with `str.find` and anchored regexes, so the time is linear in the input size.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple, TypeVar

__all__ = [
    "LEAN_LANGUAGES",
    "TACTICS_LANGUAGE",
    "THINK_CLOSE",
    "THINK_OPEN",
    "UTF8_ERRORS",
    "Block",
    "Completion",
    "Span",
    "frozen_instance",
    "parse_completion",
]

UTF8_ERRORS = "surrogatepass"
"""How the text is encoded to UTF-8 for the byte-level measures: a lone surrogate (JSON allows `"\\ud800"`, no
tokenizer writes one) is kept as its three bytes, so a hostile text is measured (as invisible characters) and never
raises."""
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
TACTICS_LANGUAGE = "tactics"
LEAN_LANGUAGES = ("lean4", "lean")

# A fence may be indented (models indent fences inside lists), but not by more than this: it keeps the look-behind
# for the line start bounded, so a megabyte-long line full of backticks is still scanned in linear time.
_MAX_FENCE_INDENT = 16
_T = TypeVar("_T")
_TICKS = re.compile("`+")
# What may follow a closing fence on its line (CommonMark: spaces or tabs): a fence followed by a no-break space or
# another Unicode space does not close its block, so no padding hides on the closing fence's line.
_FENCE_SPACE = " \t"
# A fence of exactly three backticks at the start of its line, with its info string; or (no `info` group) any other
# ```` ``` ````. It is written to start with the backticks, so the regex engine skips the prose between fences in C.
_PLAIN_FENCE = re.compile(r"```(?:(?<![^\n]```)(?!`)(?P<info>[^\n]*))?")
# A whole block of the usual text (`_PLAIN_FENCE`'s opening fence, with no backtick in its info string, then every line
# up to the next ```` ``` ````, which is a bare closing fence: spaces or tabs after it only); or (no `info` group) any
# other ```` ``` ````. One match a block rather than one a fence, and the body is skipped in C. The body runs to the first ```` ``` ```` (it is
# `[^`]*` runs joined by backticks not followed by two more), so it never backtracks past a fence.
_PLAIN_BLOCK = re.compile(
    r"```(?:(?<![^\n]```)(?!`)(?P<info>[^\n`]*)\n(?P<body>[^`]*(?:`(?!``)[^`]*)*)(?<=\n)```(?!`)[ \t]*(?![^\n]))?"
)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")


class Span(NamedTuple):
    """A half-open range `[start, end)` of character offsets into `Completion.text`."""

    start: int
    end: int

    @property
    def size(self) -> int:
        """Number of characters in the range."""
        return self.end - self.start


class Block(NamedTuple):
    """A fenced code block: its language (the fence's info word, lower-cased), its text and where it lies.

    A named tuple rather than a dataclass because a long completion holds a hundred of them and creating a frozen
    dataclass is several times slower.

    Attributes:
        language: First word of the opening fence's info string, lower-cased ("" for a bare fence).
        text: The lines between the fences (without the fences' own newlines).
        start: Offset of the opening fence line.
        end: Offset just past the closing fence line (the region's end when the block is unclosed).
        body_start: Offset where `text` starts.
        closed: False when the block ran to the end of its region (the thinking or the text) without a closing fence.
    """

    language: str
    text: str
    start: int
    end: int
    body_start: int
    closed: bool

    @property
    def span(self) -> Span:
        """From the start of the opening fence line to the end of the closing fence line."""
        return Span(self.start, self.end)

    @property
    def body(self) -> Span:
        """Where `text` lies."""
        return Span(self.body_start, self.body_start + len(self.text))


def frozen_instance(cls: type[_T], *fields: Mapping[str, Any]) -> _T:
    """An instance of the frozen dataclass `cls` with its `__dict__` filled from `fields` (later ones win).

    A frozen dataclass's `__init__` sets each field through `object.__setattr__`; it validates nothing, so filling the
    `__dict__` gives the same object, and a check makes three such objects (one with 50 fields) per completion.
    """
    instance = object.__new__(cls)
    for values in fields:
        instance.__dict__.update(values)
    return instance


def _block(fields: tuple[str, str, int, int, int, bool]) -> Block:
    """A `Block` from its fields, without the Python-level `__new__` of a named tuple (a completion has hundreds)."""
    return tuple.__new__(Block, fields)


@dataclass(frozen=True)
class Completion:
    r"""A parsed completion: the `<think>` element, the tactic blocks inside it, and the Lean blocks after it.

    Spans index into `text`, which is the input with line endings normalised to "\n".
    When `</think>` is present but `<think>` is not (a chat template that opened the thinking in the prompt),
    everything before `</think>` is taken as the thinking. With extra tags, the thinking runs from the first
    `<think>` to the last `</think>`.

    Attributes:
        text: The completion with line endings normalised to "\n".
        think: The whole think element, tags included (to the end of the text when it is never closed).
        thinking_span: The text between the tags.
        think_closed: Whether the think element ends with `</think>` (False when there is none).
        think_open_tags: How many `<think>` tags the text holds.
        think_close_tags: How many `</think>` tags the text holds.
        thinking_blocks: Every fenced block inside the thinking, in order.
        code_blocks: The Lean blocks (`lean4` or `lean` fences) after the thinking, in order.
        other_blocks_after: Fenced blocks in another language after the thinking.
    """

    text: str
    think: Span | None
    thinking_span: Span | None
    think_closed: bool
    think_open_tags: int
    think_close_tags: int
    thinking_blocks: tuple[Block, ...]
    code_blocks: tuple[Block, ...]
    other_blocks_after: tuple[Block, ...] = field(default=())

    @property
    def thinking(self) -> str | None:
        """The text inside the think element, or None when the completion has no thinking."""
        span = self.thinking_span
        return None if span is None else self.text[span.start : span.end]

    @property
    def tactic_blocks(self) -> tuple[Block, ...]:
        """The ```` ```tactics ```` blocks inside the thinking, in order."""
        return tuple([b for b in self.thinking_blocks if b.language == TACTICS_LANGUAGE])

    @property
    def lean_blocks_in_thinking(self) -> tuple[Block, ...]:
        """Lean-fenced blocks inside the thinking (the format wants ```` ```tactics ```` there instead)."""
        return tuple([b for b in self.thinking_blocks if b.language in LEAN_LANGUAGES])

    @property
    def final_block(self) -> Block | None:
        """The last Lean block after the thinking (the one a verifier should check), closed or not."""
        return self.code_blocks[-1] if self.code_blocks else None

    @property
    def code(self) -> str | None:
        """The final Lean code to verify: the text of the last closed Lean block after the thinking, else None.

        An unclosed final block is a truncated generation, so it gives None rather than half a proof.
        """
        blocks = self.code_blocks  # `final_block`, read directly: the rules ask for the code several times
        return blocks[-1].text if blocks and blocks[-1].closed else None

    @property
    def before_think(self) -> str:
        """Text before the `<think>` tag (empty when the completion starts with it)."""
        return "" if self.think is None else self.text[: self.think.start]

    @property
    def after_code(self) -> str:
        """Text after the final Lean block (empty when there is no block or the block is unclosed)."""
        block = self.final_block
        return "" if block is None else self.text[block.end :]

    @cached_property
    def reasoning(self) -> str:
        """The thinking with its ```` ```tactics ```` and Lean blocks cut out: the natural-language reasoning."""
        return "\n".join(self.reasoning_pieces)

    @cached_property
    def reasoning_pieces(self) -> tuple[str, ...]:
        """The stretches of the thinking between its tactic and Lean blocks, in order (`reasoning` joins them)."""
        span = self.thinking_span
        if span is None:
            return ()
        pieces: list[str] = []
        pos = span.start
        for block in self.thinking_blocks:
            if block.language == TACTICS_LANGUAGE or block.language in LEAN_LANGUAGES:
                pieces.append(self.text[pos : block.start])
                pos = block.end
        pieces.append(self.text[pos : span.end])
        return tuple(pieces)

    @cached_property
    def summary(self) -> str:
        """Text between `</think>` and the first Lean block after it (the rest of the text when there is none)."""
        if self.think is None or not self.think_closed:
            return ""
        end = self.code_blocks[0].start if self.code_blocks else len(self.text)
        return self.text[self.think.end : end]

    @cached_property
    def block_edges(self) -> tuple[int, ...]:
        """Where in `prose`'s lines a tactic or Lean block of the thinking was cut out: the index of the line after.

        Lines on either side of a block were not written in a row, so the loop rules do not join them into one run
        (twelve hints tried, each in its own block). A block that repeats the one before (`norm_num` after each copy
        of a loop) is no such edge: writing it again is part of the loop.
        """
        edges: list[int] = []
        line = 0
        cut = [b.text for b in self.thinking_blocks if b.language == TACTICS_LANGUAGE or b.language in LEAN_LANGUAGES]
        for i, piece in enumerate(self.reasoning_pieces[:-1]):
            line += piece.count("\n") + 1
            if i == 0 or cut[i].strip() != cut[i - 1].strip():
                edges.append(line)
        return tuple(edges)

    @cached_property
    def prose(self) -> str:
        """The natural-language text that repetition is judged on: the reasoning, and the summary after the thinking."""
        summary = self.summary
        return self.reasoning + "\n" + summary if summary.strip() else self.reasoning

    @cached_property
    def prose_utf8(self) -> bytes:
        """`prose` in UTF-8, encoded piece by piece (cheaper than joining the pieces into one string first)."""
        encoded = [piece.encode(errors=UTF8_ERRORS) for piece in self.reasoning_pieces]
        summary = self.summary
        if summary.strip():
            encoded.append(summary.encode(errors=UTF8_ERRORS))
        return b"\n".join(encoded)

    @cached_property
    def inline_tactics(self) -> tuple[str, ...]:
        """Inline code mentions in the reasoning (`` `nlinarith [sq_nonneg x]` ``), in order of appearance."""
        return tuple(_INLINE_CODE.findall(self.reasoning))


def parse_completion(text: str) -> Completion:
    r"""Parse a model completion into its thinking, tactic blocks and final Lean block.

    Never raises on odd input: unclosed tags or fences, CRLF line endings, `lean` instead of `lean4` fences and
    empty text all give a `Completion` that records what is there.

    Args:
        text: The model's response (the assistant message only, not the prompt).

    Returns:
        The parsed completion; spans refer to `Completion.text` (the input with "\n" line endings).

    Example:
        >>> c = parse_completion("<think>\n```tactics\nsimp\n```\n</think>\n```lean4\nexample : True := by simp\n```")
        >>> c.code
        'example : True := by simp'
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    open_at = text.find(THINK_OPEN)
    # The thinking runs from the first `<think>` to the last `</think>`, so extra tags leave everything inside it.
    close_at = text.rfind(THINK_CLOSE)
    if close_at < open_at:
        close_at = -1
    # One pass counts both tags ("think>" ends each); count them apart only in the rare case of extra tags.
    tags = text.count("think>")
    if tags == (open_at != -1) + (close_at != -1):
        open_tags, close_tags = int(open_at != -1), int(close_at != -1)
    else:
        open_tags, close_tags = text.count(THINK_OPEN), text.count(THINK_CLOSE)

    think: Span | None = None
    thinking: Span | None = None
    closed = close_at != -1
    if closed:
        # `<think>` may be missing when the chat template opened the thinking in the prompt.
        start = 0 if open_at == -1 else open_at
        content_start = 0 if open_at == -1 else open_at + len(THINK_OPEN)
        think = Span(start, close_at + len(THINK_CLOSE))
        thinking = Span(content_start, close_at)
    elif open_at != -1:
        # Unclosed thinking (usually a generation cut at the length limit): all of it is thinking, no code.
        think, thinking = Span(open_at, len(text)), Span(open_at + len(THINK_OPEN), len(text))
    code_region_start = think.end if think is not None else 0

    thinking_blocks = _scan_blocks(text, thinking.start, thinking.end) if thinking is not None else []
    after = _scan_blocks(text, code_region_start, len(text))
    code_blocks = tuple([b for b in after if b.language in LEAN_LANGUAGES])
    # `Completion(...)` without its `__init__`: a tiny completion's whole check is a few hundred calls; this saves nine.
    return frozen_instance(
        Completion,
        dict(
            text=text,
            think=think,
            thinking_span=thinking,
            think_closed=closed,
            think_open_tags=open_tags,
            think_close_tags=close_tags,
            thinking_blocks=tuple(thinking_blocks),
            code_blocks=code_blocks,
            other_blocks_after=(
                () if len(code_blocks) == len(after) else tuple([b for b in after if b.language not in LEAN_LANGUAGES])
            ),
        ),
    )


def _scan_blocks(text: str, start: int, end: int) -> list[Block]:
    """Find the fenced blocks in `text[start:end]`, CommonMark style: a closing fence is a bare line of backticks.

    A fence line is a line that starts (after at most a small indent) with three or more backticks. Inside an open
    block, a fence line that carries an info string (```` ```lean4 ````) is content, not a close, exactly as a
    Markdown renderer shows it. A block still open at `end` is returned with `closed=False`.
    """
    blocks = _scan_plain_blocks(text, start, end)
    return blocks if blocks is not None else _scan_any_fences(text, start, end)


def _scan_plain_blocks(text: str, start: int, end: int) -> list[Block] | None:
    """`_scan_blocks` for the usual text, where every block is an opening fence, lines without fences, a bare close.

    One `_PLAIN_BLOCK` match a block; any other ```` ``` ```` (a fence with a language inside a block, an unclosed
    block, a fence that is not plain) leaves the region to `_scan_plain_fences`, which gives the same blocks here.
    """
    blocks: list[Block] = []
    for match in _PLAIN_BLOCK.finditer(text, start, end):
        info = match[1]
        if info is None:
            return _scan_plain_fences(text, start, end)
        body_start, body_end = match.span(2)
        words = info.split(None, 1)
        # The body is the lines between the fences: without the newline before the closing fence (when it has lines).
        fields = (
            words[0].lower() if words else "",
            text[body_start : max(body_start, body_end - 1)],
            match.start(),
            match.end(),
            body_start,
            True,
        )
        blocks.append(_block(fields))
    return blocks


def _scan_plain_fences(text: str, start: int, end: int) -> list[Block] | None:
    """`_scan_blocks` for the usual text, where every ```` ``` ```` is a fence of three backticks starting its line.

    One regex pass finds the fences. Returns None, leaving the region to `_scan_any_fences`, at the first ```` ``` ````
    that is indented, longer, or inside a line (where the exact rules for the line's start and length apply).
    """
    blocks: list[Block] = []
    opened = False
    open_start = body_start = 0
    language = ""
    for fence in _PLAIN_FENCE.finditer(text, start, end):
        info = fence[1]
        if info is None:
            return None
        if not opened:
            info = info.strip()
            if "`" not in info:  # CommonMark: a backtick fence's info string holds no backtick
                opened = True
                open_start, body_start = fence.span()
                body_start = min(body_start + 1, end)
                language = info.split(None, 1)[0].lower() if info else ""
        elif not info.strip(_FENCE_SPACE):
            fence_start, fence_end = fence.span()
            body = text[body_start : max(body_start, fence_start - 1)]
            blocks.append(_block((language, body, open_start, fence_end, body_start, True)))
            opened = False
    if opened:
        blocks.append(_block((language, text[body_start:end], open_start, end, body_start, False)))
    return blocks


def _scan_any_fences(text: str, start: int, end: int) -> list[Block]:
    """`_scan_blocks` for any text: each ```` ``` ```` is checked for the start of its line, its indent and length."""
    blocks: list[Block] = []
    opened = False
    open_start = body_start = open_ticks = 0
    language = ""
    pos = text.find("```", start, end)
    while pos != -1:
        after_ticks = pos + 3
        if text.startswith("`", after_ticks):
            ticks = _TICKS.match(text, pos, end)
            after_ticks = ticks.end() if ticks else after_ticks
        # Fast path: the fence starts its line, as nearly every fence does.
        line_start = pos if pos == start or text[pos - 1] == "\n" else _line_start(text, start, pos)
        if line_start is None:
            pos = text.find("```", after_ticks, end)
            continue
        line_end = text.find("\n", after_ticks, end)
        if line_end == -1:
            line_end = end
        rest = text[after_ticks:line_end]
        info = rest.strip()
        if not opened:
            if "`" not in info:  # CommonMark: a backtick fence's info string holds no backtick
                opened, open_start, open_ticks = True, line_start, after_ticks - pos
                body_start = min(line_end + 1, end)
                language = info.split(None, 1)[0].lower() if info else ""
        elif not rest.strip(_FENCE_SPACE) and after_ticks - pos >= open_ticks:
            body_end = max(body_start, line_start - 1)
            blocks.append(Block(language, text[body_start:body_end], open_start, line_end, body_start, True))
            opened = False
        pos = text.find("```", line_end, end)
    if opened:
        blocks.append(Block(language, text[body_start:end], open_start, end, body_start, False))
    return blocks


def _line_start(text: str, region_start: int, pos: int) -> int | None:
    """Start of the line holding `pos` if only spaces or tabs precede `pos` on it, else None.

    The start of the region counts as a line start, so `</think>```lean4` on one line still opens a block.
    """
    newline = text.rfind("\n", max(region_start, pos - _MAX_FENCE_INDENT - 1), pos)
    if newline != -1:
        line_start = newline + 1
    elif pos - region_start <= _MAX_FENCE_INDENT:
        line_start = region_start
    else:
        return None
    if text[line_start:pos].strip(" \t"):
        return None
    return line_start
