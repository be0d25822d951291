"""Padding: runs of one character, junk characters, and lines that are one short unit written again and again.

A run's length takes a few substring searches, no per-character loop.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from itertools import chain
from typing import AnyStr, NamedTuple

from kimina_format.parsing import UTF8_ERRORS

__all__ = [
    "Junk",
    "blank_markup",
    "junk_characters",
    "longest_run",
    "marked_letters",
    "mixed_script_letters",
    "over_limit_run",
    "padded",
    "typographic_spaces",
]

# Bytes of printable ASCII and newline: deleting them leaves the non-ASCII characters (whole UTF-8 sequences, so it
# decodes), tabs and the other control characters, usually a few dozen bytes.
_PLAIN_BYTES = bytes(range(32, 127)) + b"\n"
# Characters that show nothing or look like a space: C0/C1 controls, no-break and other non-ASCII spaces, soft hyphen,
# combining grapheme joiner, Hangul and Mongolian fillers, zero-width and bidi format characters, word joiners,
# ideographic space, variation selectors, the BOM, interlinear annotation, tag characters, blank Braille, and lone
# surrogates (`UTF8_ERRORS`).
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\xa0\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u1680"
    "\u2000-\u200f\u2028-\u202f\u205f-\u206f\u2800\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffc"
    "\U0001d159\U000e0000-\U000e0fff\ud800-\udfff]"
)
# Pictographs: emoji and their modifiers, miscellaneous symbols and dingbats, arrows-and-shapes blocks that math never
# uses, private use. Not mathematical operators, arrows, letter-like symbols or CJK, which real reasoning is full of.
_SYMBOL = re.compile("[\u2600-\u27bf\u2b00-\u2bff\ue000-\uf8ff\U0001f000-\U0001faff\U000f0000-\U0010ffff]")
# Letters that read as Latin ones but are other characters, which real reasoning never writes: combining marks inside
# a word (`é` as `e` and U+0301: models write composed letters; see `marked_letters`) and full-width Latin letters
# and digits (not the full-width punctuation of Chinese text). The letters of other scripts and alphabets that look
# like Latin ones count only next to a Latin letter (see `mixed_script_letters`): `𝓝 0`, `𝔼[X]`, `𝑥 + 𝑦`, `ρ(x)`, a
# sentence in Greek, Russian or Armenian are text, `Sincе` with a Cyrillic `е`, `sq𝑢are` or `ᴛhe` a disguise. They are the Latin-looking Greek
# capitals and lowercase letters (`ο ν ι κ ρ υ χ`, not `α`, `π` or `θ`), Cyrillic, Armenian, Cherokee and Lisu letters,
# IPA letters, small capitals and modifier letters (`ɑ`, `ᴛ`, `ᵉ`, not `ⁿ`), the letterlike `ℊ ℎ ℓ ℯ ℴ`, and the
# mathematical alphanumerics. Accented Latin letters (`é`, `ő`, `ơ`) are names and languages, not look-alikes.
# The Unicode categories counted beyond those lists: format characters and unassigned code points (invisible), and
# combining, enclosing and spacing marks (look-alikes inside a word, as a mark turns a letter into another-looking
# one; on a letter alone, `u⃗`, `z̄`, `x̂`, it is a formula's).
_HIDDEN = frozenset({"Cf", "Cn"})
_MARKS = frozenset({"Mn", "Me", "Mc"})
_LOOKALIKE = re.compile("[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]")
_OTHER_SCRIPT = (
    "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7"
    "\u03b9\u03ba\u03bd\u03bf\u03c1\u03c5\u03c7\u0250-\u02af\u0400-\u052f\u0531-\u058f\u13a0-\u13ff"
    "\u1d00-\u1d6a\u210a\u210e\u2113\u212f\u2134\ua4d0-\ua4ff\U0001d400-\U0001d7ff"
)
_FOREIGN = re.compile(f"[{_OTHER_SCRIPT}]")
_MIXED_SCRIPT = re.compile(f"[A-Za-z][{_OTHER_SCRIPT}]|[{_OTHER_SCRIPT}](?=[A-Za-z])")


# Punctuation variants folded for the repetition measures (see `Junk.folds`). Not the dashes and curly quotes, which
# the repetition measures read as marks that disguise a copy, and delete.
_VARIANTS = {"\u3002": ".", "\u3001": ",", "\u02bc": "'"}
# Most foldable characters a text may hold before its repetition is measured on its folded prose: a loop whose
# copies are disguised by accents or punctuation variants at other places in each copy holds hundreds; a name with an
# accent (`Bézout`, `Erdős`) a few.
_MOST_UNFOLDED = 32


class Junk(NamedTuple):
    """Characters that carry no text, or disguise it (see `junk_characters`)."""

    invisible: int
    symbols: int
    tabs: int
    lookalikes: int = 0
    foreign: bool = False
    folds: dict[int, str] | None = None
    """What each accented Latin letter, full-width form and punctuation variant of the text folds to (`_folded`), as
    a `str.translate` table, when the text holds more than `_MOST_UNFOLDED` of them (None otherwise)."""
    marks: str = ""
    """The different combining, enclosing and spacing marks of the text (see `marked_letters`)."""


def junk_characters(data: bytes) -> Junk:
    """Count the invisible characters, the pictographs, the tabs and the look-alike letters of UTF-8 `data`.

    One `bytes.translate` (C) keeps the non-ASCII and control bytes; only those are decoded and matched, so plain
    text costs one scan, and a reasoning in Chinese or full of `ℝ`, `≤` and subscripts is not junk. Whether there
    is a letter of another script that looks like a Latin one is told too: only then need the whole text be read for
    `mixed_script_letters`.
    """
    rest = data.translate(None, _PLAIN_BYTES)
    if not rest:
        return Junk(0, 0, 0)
    try:
        text = rest.decode("utf-8", UTF8_ERRORS)
    except UnicodeDecodeError:  # not what `Completion.prose_utf8` gives: bytes that are not UTF-8 at all
        text = rest.decode("utf-8", "replace")
    invisible = len(_INVISIBLE.findall(text))
    lookalikes = len(_LOOKALIKE.findall(text))
    # Beyond the listed ranges, by Unicode category, read once per different character: format characters and
    # unassigned code points show nothing; marks (`⃐`, `᷈`) disguise a letter inside a word (`marked_letters`).
    folds: dict[int, str] = {}
    foldable = 0
    marks = []
    for char in set(text):
        category = unicodedata.category(char)
        if category in _HIDDEN and _INVISIBLE.match(char) is None:
            invisible += text.count(char)
        elif category in _MARKS and _INVISIBLE.match(char) is None:
            marks.append(char)
        plain = _folded(char, category)
        if plain is not None:
            folds[ord(char)] = plain
            foldable += text.count(char)
    return Junk(
        invisible,
        len(_SYMBOL.findall(text)),
        text.count("\t"),
        lookalikes,
        _FOREIGN.search(text) is not None,
        folds if foldable > _MOST_UNFOLDED else None,
        "".join(sorted(marks)),
    )


def typographic_spaces(data: bytes) -> int:
    """The no-break and thin spaces of UTF-8 `data` where French typography puts them (`Donc :`, `1 000`, `5 %`).

    `_INVISIBLE` counts every no-break space as junk, since padding hides in them; these show where they stand.
    """
    return len(_TYPOGRAPHIC_SPACE.findall(data))


# A no-break, narrow no-break or thin space before `:`, `;`, `?`, `!`, `%` or `»`, after `«`, or between digits.
_TYPOGRAPHIC_SPACE = re.compile(
    rb"(?:\xc2\xa0|\xe2\x80[\xaf\x89])(?=[:;?!%]|\xc2\xbb)|(?<=\xc2\xab)(?:\xc2\xa0|\xe2\x80[\xaf\x89])"
    rb"|(?<=[0-9])(?:\xc2\xa0|\xe2\x80[\xaf\x89])(?=[0-9])"
)


def blank_markup(data: bytes) -> int:
    r"""Occurrences of the markup in UTF-8 `data` that pads a line without a whitespace character.

    HTML comments, tags and blank character entities (`&nbsp;`, `&#8203;`, `<!-- -->`, `<br>`, `<p><p>`), Markdown
    links without their text (`[](#1)`) and Markdown comments (`[//]: # (...)`) render as nothing, and so do an empty
    formula, code span or bold (`$ $`, `\( \)`, `` ` ` ``, `****`) and the text of a long phantom or of white text.
    TeX's spaces, line breaks and invisible boxes (`\hspace{10cm}`, `\phantom{x}`, `\quad`, `~`, `\\`) render as
    blank space, and pad for each three in a row or any at a formula's edge (`_tex_padding`, `_tilde_padding`).
    """
    count = sum(len(found.findall(data)) for found in (_HTML_TAG, _ENTITY, _EMPTY_LINK, _EDGE_BLANK, _EMPTY_BRACKETS))
    if b"]:" in data:
        count += len(_LINK_DEFINITION.findall(data))
    if b"white" in data:
        count += len(_WHITE_TEXT.findall(data))
    if b"~" in data:
        count += _tilde_padding(data)
    count += _empty_pairs(data)
    units = list(_TEX_SPACE.finditer(data))
    return count + _tex_padding(data, units) if units else count


def _tilde_padding(data: bytes) -> int:
    r"""The runs of TeX no-break spaces inside a formula of `data`: each three (`~~~`, `~ ~ ~`), or two at a `$`.

    A formula is told by its line: an odd number of `$` before the run (`$$` is one), or a `\(` or `\[` not closed
    before it. Outside a formula a `~` shows as written, `~~~` opens a Markdown fence, and in Lean `~~~x` is a
    complement; one `~` between two formulas is a range (`$1$~$5$`) or "about" (`~$50`).
    """
    count = 0
    for run in _TILDE_RUN.finditer(data):
        start, end = run.span()
        line = data.rfind(b"\n", 0, start) + 1
        before = data[line:start]
        if not _in_formula(before):
            continue
        tildes = run.group().count(b"~")
        if tildes >= 3:
            count += tildes // 3  # a long run pads as much as many short ones
        elif before.rstrip(b" \t").endswith(b"$") or data[end : end + 64].lstrip(b" \t").startswith(b"$"):
            count += 1
    return count


def _empty_pairs(data: bytes) -> int:
    """The formulas, code spans and bold marks of `data` that hold only spaces (`$ $`, `$$$$`, `` ` ` ``, `****`).

    Each renders as nothing. Its first mark opens it when an even number of its marks stand before it on its line,
    so the space between two formulas (`$a$ $b$`), two code spans or two bold words is none.
    """
    count = 0
    for empty in chain.from_iterable(pattern.finditer(data) for pattern in _EMPTY_PAIRS):
        start = empty.start()
        before = data[data.rfind(b"\n", 0, start) + 1 : start]
        mark = empty.group()
        marks = _dollars(before) if mark[:1] == b"$" else before.count(mark)
        count += marks % 2 == 0
    return count


def _tex_padding(data: bytes, units: list[re.Match[bytes]]) -> int:
    r"""The runs of TeX spaces (`units`, in order) that pad `data`: each three in a row, or any at a formula's edge.

    Inside a formula, one TeX space between two of its parts, or two in a row, is its layout (`x = 1, \quad y = 2`,
    `\int\!\!\int f \,dx\,dy`, `k \;\; \text{since}`, `\phantom{-}1` aligning signs); `$\quad$` or `$x = 1 \quad$`
    pads it, and so do `\quad\quad\quad` and `\quad{}\quad{}\quad`, but not `\!\!\!`, which kerns (`\int\!\!\!\int`).
    Outside a formula TeX is not rendered, so `\quad` shows as written. A phantom of more than `_LONGEST_PHANTOM`
    bytes hides text, and counts wherever it stands.
    """
    count = 0
    start, end, size = units[0].start(), units[0].end(), 1
    for unit in [*units[1:], None]:
        if unit is not None and not data[end : unit.start()].strip(_RUN_GAP):
            end, size = unit.end(), size + 1
            continue
        if size >= 3 and data[start:end].replace(b"\\!", b"").strip(_RUN_GAP):
            count += size // 3  # a long run pads as much as many short ones
        elif (_at_formula_edge(data, start, end) and data[start:end].replace(b"\\\\", b"").strip(_RUN_GAP)) or (
            size == 1 and end - start > _LONGEST_PHANTOM and data.startswith(_PHANTOMS, start)
        ):
            count += 1
        if unit is not None:
            start, end, size = unit.start(), unit.end(), 1
    return count


def _at_formula_edge(data: bytes, start: int, end: int) -> bool:
    r"""Whether `data[start:end]` opens or closes a formula, spaces aside: after its `$`, `\(` or `\[`, or before them.

    A `$` opens a formula when an even number of `$` stand before it on its line (`$$` is one), so a `\qquad` between
    two formulas (`(A) $1$ \qquad (B) $2$`) is text, not an edge.
    """
    if data[max(0, start - 64) : start].rstrip().endswith(_OPENERS) or data[end : end + 64].lstrip().startswith(
        _CLOSERS
    ):
        return True
    line = data.rfind(b"\n", 0, start) + 1
    head = data[line:start].rstrip(b" \t")
    if head.endswith(b"$") and _dollars(head) % 2:
        return True
    return data[end : end + 64].lstrip(b" \t").startswith(b"$") and _dollars(data[line:end]) % 2 == 1


def _in_formula(line: bytes) -> bool:
    r"""Whether a formula is open at the end of `line`, a line's text up to a point.

    It is after an odd number of `$` (`$$` is one), or after a `\(` or `\[` that no `\)` or `\]` closes.
    """
    return (
        bool(_dollars(line) % 2) or line.rfind(b"\\(") > line.rfind(b"\\)") or line.rfind(b"\\[") > line.rfind(b"\\]")
    )


def _dollars(text: bytes) -> int:
    """The formula delimiters of `text`: its `$`, a `$$` counting as one."""
    return text.count(b"$") - text.count(b"$$")


_OPENERS = (b"\\(", b"\\[")
_CLOSERS = (b"\\)", b"\\]")
# What may stand between two TeX spaces of one run: whitespace and empty groups.
_RUN_GAP = b" \t\r\n{}"
_PHANTOMS = (b"\\phantom", b"\\hphantom", b"\\vphantom")
_LONGEST_PHANTOM = 40  # bytes of `\phantom{...}`: `\vphantom{\frac{1}{2}}` sizes brackets, a sentence in it is hidden
_TEX_ARG = rb"\s*\{[^{}\n]*(?:\{[^{}\n]*\}[^{}\n]*)*\}"
# TeX's spaces and invisible boxes; TeX is case-sensitive. The character after the backslash is looked at first, so
# the many other commands of a formula (`\frac`, `\cdot`) cost one test each. `\ ` is a control space, which in Lean
# is set difference (`s \ t`): one alone is no run. `\\` and `\newline` break a line: one ends a row of a matrix, three
# in a row are blank lines.
_TEX_SPACE = re.compile(
    rb"\\(?=[qenhvsmrtkp,;:!> \\])"
    rb"(?:(?:q?quad|en(?:space|skip)|(?:neg)?(?:thin|med|thick)space|nobreakspace|space|newline|[hv]fil+|[hv]ss"
    rb"|(?:small|med|big)skip|null|relax|strut|mathstrut)(?![a-zA-Z])|[,;:!> \\]"
    rb"|(?:[hv]space\*?|[hv]?phantom|smash|mspace|rule(?:\[[^\]\n]*\])?"
    + _TEX_ARG
    + rb")"
    + _TEX_ARG
    + rb"|(?:m?kern|[hmv]skip)\s*-?[0-9.]*\s*[a-z]*|(?:text|mbox|hbox|mathrm|textrm)\s*\{\s*\})"
)
# The opening mark of a formula, code span or bold of spaces; the match is that mark alone, so `$x$ $ $` finds the
# second formula. `$$` opens a display; a code span opens with one or two backticks (three open a fence, and so
# do four at a line's start: `````` must hold a space).
# One pattern a mark, each starting on its literal character, which the regex engine finds fast (one pattern of
# every alternative cost a millisecond a completion: `_` and `*` are everywhere in code).
_EMPTY_PAIRS = (
    re.compile(rb"\$(?:\$(?=[ \t]*\$\$)|(?=[ \t]+\$))"),
    re.compile(rb"`(?<!``)(?:`(?=[ \t]+``(?!`))|(?=[ \t]+`(?!`)))"),
    re.compile(rb"\*\*(?=[ \t]*\*\*)"),
    re.compile(rb"__(?=[ \t]*__)"),
)
# Two or more TeX no-break spaces, joined by spaces or empty groups.
_TILDE_RUN = re.compile(rb"~(?:[ \t{}]*~)+")
# An empty formula between brackets (`\( \)`), or an empty group at a formula's edge (`${}$`); before `^` or `_`
# that is a prescript (`${}^{n}C_k$`), and elsewhere no padding: in Lean `{}` is an empty structure.
_EDGE_BLANK = re.compile(rb"\$(?:[ \t]*\{\s*\}(?![ \t]*[\^_])|(?<=\{\}\$))")
_EMPTY_BRACKETS = re.compile(rb"\\(?:\([ \t]*\\\)|\[[ \t]*\\\])")
# Every piece of HTML counts: real completions write none (no tag, comment or entity), no Markdown link without its
# text and no Markdown comment. A tag counts by HTML's element names; one of one letter (`<p>`, `<b>`) opens only with
# an attribute, or in a row of tags, where no operand stands before it (`0<b>k` is a formula, `H = <a>` a group).
# Other names (`<g>`, `<proof>`, `<think>`) are text. An entity counts when it renders blank: numeric ones (`&#8203;`,
# `&#32;`) and the named spaces and joiners; `&lt;` shows a `<`.
_HTML_TAGS = (
    rb"(?:br|hr|wbr|div|span|pre|font|center|small|big|sub|sup|em|strong|code|tt|kbd|mark|del|ins|details|summary"
    rb"|table|tr|td|th|thead|tbody|tfoot|caption|col|colgroup|img|section|article|aside|header|footer|nav|main|label"
    rb"|input|button|select|option|textarea|form|iframe|svg|ol|ul|li|dl|dt|dd|h[1-6]|style|template|script|abbr|cite"
    rb"|bdi|bdo|dfn|var|samp|time|data|meter|progress|ruby|rt|rp|figure|figcaption|blockquote|address|noscript|object"
    rb"|embed|video|audio|source|track|canvas|map|area|picture|slot|output|fieldset|legend|datalist|optgroup|dialog"
    rb"|menu|strike|blink|marquee|nobr|acronym)"
)
_HTML_TAG = re.compile(
    rb"<(?:(?:!--|![a-z\[]|\?[a-z])[^<>\n]*>?"
    rb"|/?" + _HTML_TAGS + rb"(?:\s[^<>\n]*)?/?>"
    rb"|/[abiupqs]\s*>"
    rb"|(?<![\w)\]}]<)[abiupqs](?:\s+[a-z-]+(?:\s*=[^<>\n]*)?/?>|>(?=<)))",
    re.IGNORECASE,
)
_ENTITY = re.compile(
    rb"&(?:(?:#[0-9]+|#[xX][0-9a-fA-F]+|nbsp|shy)(?![0-9a-zA-Z;])|(?:#[0-9]+|#[xX][0-9a-fA-F]+|nbsp|ensp|emsp|emsp1[34]"
    rb"|thinsp|hairsp|numsp|puncsp|zwnj|zwj|lrm|rlm|shy|it|ic|af|Tab|NewLine|NoBreak|ZeroWidthSpace|NonBreakingSpace"
    rb"|(?:Negative)?(?:Very)?(?:Thin|Medium|Thick)Space|Invisible(?:Times|Comma)|ApplyFunction);)"
)
# A Markdown link or image without its text (`[](#1)`), and a link reference definition (`[//]: # (note)`), which is
# Markdown's comment (a line's, so after a line break: a completion opens with `<think>`), but not a footnote's
# (`[^1]: ...`) or a Lean binder's (`[Fintype α]: ...`).
_EMPTY_LINK = re.compile(rb"\[\s*\]\([^()\n]*\)")
_LINK_DEFINITION = re.compile(rb"\n {0,3}\[(?!\^)[^\]\s]*\]:[ \t]")
# Text coloured as the page hides it.
_WHITE_TEXT = re.compile(rb"\\(?:text)?color\s*\{\s*white\s*\}")


def marked_letters(text: str, marks: str) -> int:
    """The combining marks of `text` inside a word of two letters or more, stacked or on a space (`marks`: all kinds).

    A mark on a letter alone is a formula's (`u⃗`, `z̄`, `x̂`, `x⃗̇`); inside a word (`L⃓et's`, `e` and U+0301 for `é`)
    it disguises the word. Three marks or more stacked on one character (`e` and ten different marks) and a mark on a
    space or at a line's start (U+0336 striking every word through) hide nothing but pad the text: each counts. Two
    marks on a letter are a script's (`में` in Hindi, decomposed Vietnamese) or a formula's.
    """
    mark = "[" + re.escape(marks) + "]"
    found = re.findall(
        f"{mark}{{3,}}|(?<=[^\\W\\d_][^\\W\\d_]){mark}|(?<=[^\\W\\d_]){mark}(?={mark}*[^\\W\\d_])|(?<!\\S){mark}",
        text,
    )
    return sum(map(len, found))


def _folded(char: str, category: str) -> str | None:
    """The plain form of `char`, or None when it has none that the repetition measures should compare.

    An accented Latin letter's is its base (`é` is `e`), a full-width form's its ASCII (`，` is `,`), and a
    punctuation variant's (`。`, `ʼ`) the ASCII mark it stands for.
    """
    if char in _VARIANTS:
        return _VARIANTS[char]
    if "\uff01" <= char <= "\uff5e":
        return chr(ord(char) - 0xFEE0)
    if category in ("Ll", "Lu") and not char.isascii():
        base = "".join(c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c))
        if base != char and base.isascii():
            return base
        # Letters that do not decompose: `ø` is LATIN SMALL LETTER O WITH STROKE, `ꞓ` LATIN SMALL LETTER C WITH BAR.
        name = _LATIN_WITH.fullmatch(unicodedata.name(char, ""))
        if name is not None:
            return name.group(2).lower() if name.group(1) == "SMALL" else name.group(2)
    return None


_LATIN_WITH = re.compile(r"LATIN (SMALL|CAPITAL) LETTER ([A-Z]) WITH .*")


def mixed_script_letters(text: str) -> int:
    """Letters of `text` from other scripts and alphabets that look like Latin ones, next to a Latin letter."""
    return len(_MIXED_SCRIPT.findall(text))


def longest_run(text: AnyStr, unit: AnyStr) -> int:
    """Length of the longest run of `unit` (one character or byte) in `text`.

    Doubling then bisecting the length of a needle of `unit`s: about 2 log2(n) substring searches, each a C scan
    that skips ahead by the needle's length, so even a megabyte costs little.
    """
    if unit not in text:
        return 0
    found = 1  # a run this long exists
    while unit * (2 * found) in text:
        found *= 2
    missing = 2 * found  # no run this long exists
    while missing - found > 1:
        middle = (found + missing) // 2
        if unit * middle in text:
            found = middle
        else:
            missing = middle
    return found


def over_limit_run(text: AnyStr, unit: AnyStr, limit: int | None, *, offset: int = 0) -> int:
    """`longest_run(text, unit) - offset` when that exceeds `limit`, else 0 (and 0 when there is no limit).

    One substring search answers whether the limit is exceeded; the exact length is only worked out when it is,
    since that is the case a message reports.
    """
    if limit is None or unit * (limit + offset + 1) not in text:
        return 0
    return longest_run(text, unit) - offset


# A line that compresses below this share of its UTF-8 bytes is a short unit written again and again (`~` 500 times,
# `$\quad$` 100 times, `norm_num ` 60 times). Real lines of 120 bytes or more compress to 0.21 at least (prose) and
# 0.26 (a tactic block's hint list); forty hints `sq_nonneg (x - k)` for k = 0 to 39 to 0.17, two hundred to 0.12.
_PADDED_SHARE = 0.1


def padded(line: str) -> bool:
    """Whether `line` is a short unit written again and again: zlib (C) compresses it below a tenth of its bytes.

    Meant for long lines (a few hundred bytes or more): zlib's own dozen bytes keep a short line above the share.
    """
    data = line.encode(errors=UTF8_ERRORS)
    return len(zlib.compress(data)) < _PADDED_SHARE * len(data)
