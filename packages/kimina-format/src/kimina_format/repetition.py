"""How repetitive the prose of a completion is: repeated lines, loops (copies in a row) and near-duplicate lines.

Every measure works on near-duplicate keys of the long lines: a line's UTF-8 bytes with ASCII case folded and spaces,
tabs and digits deleted, so `Case n = 3: 9 > 8` and `case n=4: 16 > 15` are one key. The keys of a whole text come
from one `bytes.translate`, and only the long lines become objects, which keeps a megabyte of reasoning cheap.
"""

from __future__ import annotations

import re
import string
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import lru_cache
from itertools import accumulate, chain, compress, pairwise, repeat
from operator import add, getitem, itemgetter, ne, or_
from typing import AnyStr, NamedTuple, cast

from kimina_format.config import FormatConfig
from kimina_format.padding import over_limit_run
from kimina_format.parsing import UTF8_ERRORS

__all__ = [
    "Repetition",
    "inline_copies",
    "line_keys",
    "longest_loop",
    "looped_passage",
    "measure_repetition",
    "most_repeated_line",
    "near_duplicate_line",
    "passage_key",
]

_KEY_TABLE = bytes.maketrans(string.ascii_uppercase.encode(), string.ascii_lowercase.encode())
_KEY_DELETE = b" \t0123456789"
# Subscript and superscript digits in UTF-8 (`₃`, `³`, `¹`), deleted from the keys as ASCII digits are: a counter
# written in them (`Attempt ₃:`, `Then x₃ is positive`) made each copy of a loop its own key.
_SCRIPT_DIGIT = re.compile(rb"\xe2\x82[\x80-\x89]|\xe2\x81[\xb0\xb4-\xb9]|\xc2[\xb2\xb3\xb9]")
# A loop's copy may span at most this many lines (the thinking's opening, written again from the top).
_MAX_LOOP_LINES = 1024
_REPEATED_STRETCH = re.compile(rb"\x01{2,}")
# The marks that `_long_line_repeats` also compares lines without (in keys, and in text), and a dash after a space:
# what disguises a copy (`word,`, `word;`, `word -`, `**word**`, `` `word` ``) but not what changes a formula (`+`,
# `-` in `a-b`, `<`, `=`, `^`, `/`).
_NOISE = ",;:!?.*_`'\""
_NOISE_BYTES = _KEY_DELETE + _NOISE.encode()
# And beyond ASCII: a hyphen and dashes, an ellipsis, a middle dot, curly quotes.
_WIDE_NOISE_MARKS = "\u2010\u2014\u2013\u2026\u00b7\u2018\u2019\u201a\u201b\u201c\u201d"
_WIDE_NOISE = tuple(mark.encode() for mark in _WIDE_NOISE_MARKS)
_NO_NOISE = str.maketrans("", "", _NOISE + " \t\n" + _WIDE_NOISE_MARKS)
# A word that a loop's copies may differ in, on lines too short for the three-quarters rule of `_alike`.
_WORD_CHARS = 12
# Fewest characters of the common stretch between two changes that `_moved_word` accepts.
_CORE_CHARS = 4
# Most units in a row without a band seen often enough that a stretch the template loop confirms may hold.
_FLAG_GAP = 2
# How many groups of alike lines `_alike_groups` keeps apart among the lines that share a band.
_MAX_GROUPS = 8
# Fewest different lines in a group of alike lines that `max_alike_lines` counts: a counter makes many.
_MIN_VARIANTS = 6
# The first length `_common_opening` tries before doubling: most lines it compares share less.
_FIRST_PROBE = 8
# How many different long keys must share an opening and an ending band before `_reworded_copies` looks at them.
_SEED_COPIES = 3
# Fewest places a group's copies must change in, for `_reworded_copies`: a table's rows change in one or two columns.
_MIN_CHANGED_PLACES = 3
# Most seeds (pairs of bands shared by different keys) `_reworded_copies` follows, the most shared first.
_MAX_SEEDS = 4
# Most lines sharing a seed's bands that `_reworded_copies` reads (hostile text: a loop's copies come well before).
_MAX_MEMBERS = 2048
# Fewest different wrappings (first and last words) of a group whose lines change only at their two ends.
_MIN_WRAPPINGS = 6
# Fewest words a line must have for `_reworded_copies` to tell a reworded copy of it.
_MIN_WORDS = 6
# Fewest plain words (tokens without digits or formula symbols) of a line that leads a group: formula lines with a
# few words among them (`so $x = 2$ and $y = 3$, hence ...`) loop too.
_LEAD_WORDS = 3
# Most words two copies of a line may differ in, for `_reworded_copies` (a fifth of a line of twenty): two each.
_FEW_WORDS = 4
# A line of this many words or more may differ in a fifth of them (`_LONG_SHARE`), past `_FEW_WORDS`: a long line
# reworded word by word (`the` as `this`, `so` as `thus`, a filler) changes a dozen of its ninety words.
_LONG_WORDS = 40
_LONG_SHARE = 5
# Fewest occurrences of one long line for it to count towards `often_repeated`: a line restated now and then is
# normal, one written five times or more is a passage looping, whatever order its lines come in.
_LONG_LINE = 80  # key bytes of a line that is a sentence or more, not a formula or a remark
_MIN_DUPLICATES = 10  # distinct long lines a thinking may repeat whatever their share (a short thinking that checks)
_OFTEN = 5
# A remark (`_repeated_remarks`): a line's key of words, punctuation and markup alone (`*Wait.*`, `> Hmm.`, `等等。`,
# `Correct ✓`), with two Latin letters in a row, a CJK character or a check mark: no formula. Its lines are confirmed
# to hold no digit (a value's verdict, `27 is not a square.`, is an enumeration's), and a key that ends in a colon is
# none: it leads into what follows (`So:`, then a formula on its own line).
_CJK = rb"[\xe4-\xe9][\x80-\xbf][\x80-\xbf]"  # CJK ideographs: three bytes, lead E4 to E9
_REMARK_LETTER = rb"[a-z]|" + _CJK
_REMARK_MARK = rb"\xe2\x9c[\x85\x93\x94\x97\x98]|\xe2\x9d\x8c"  # ✅ ✓ ✔ ✗ ✘ ❌
_REMARK_BYTE = (
    rb"(?:" + _REMARK_LETTER + rb"|" + _REMARK_MARK + rb"|[.,!?;:'\"()*_>`~#-]|\xe2\x80[\x93\x94\x98\x99\x9c\x9d\xa6]"
    rb"|\xe3\x80[\x80-\xbf]|\xef\xbc[\x80-\xbf])*"  # quotes, dashes, ellipsis; CJK and full-width punctuation
)
_REMARK = re.compile(_REMARK_BYTE + rb"(?:[a-z]{2}|" + _CJK + rb"|" + _REMARK_MARK + rb")" + _REMARK_BYTE + rb"(?<!:)")
# Fewest occurrences of one remark for it to count towards `repeated_remarks`: `Wait.` said twice is nothing.
_REMARK_REPEATS = 3
# A remark said within a line (`_inline_remarks`): a sentence of 24 key bytes at most, of letters, commas,
# apostrophes, hyphens and emphasis marks alone, that opens a line (`Hmm, wait.` then more), or closes one (searched
# reversed: `... = 3$ Wait.`). The gate, on keys (case folded, spaces deleted), takes both. The confirmation reads
# the text with its spaces, and its case for a closing one: an opening sentence ends before a space (`Real.sqrt` is
# a name), and a closing one is a sentence of its own with a capital letter, after a space and no word (a sentence
# that goes on from a formula is a verdict, `$n = 7$ is prime.`).
_WORD_BYTE = rb"(?:[a-z',*_-]|\xe2\x80[\x98\x99])"  # `’` and `‘` too
_REMARK_END = rb"(?:[.!?]|\xe2\x80\xa6)+[*_]*"  # `…` too, and the emphasis closed after it
_INLINE_REMARK_BYTES = 24
# The gate's patterns use byte classes alone (an alternation in a repeat costs four times more): the bytes of `’`,
# `‘` and `…` are taken one by one, which can only find more.
_INLINE_WORD = rb"[a-z',*_\x80\x98\x99\xe2-]{2,%d}" % _INLINE_REMARK_BYTES
_OPENING_REMARK = re.compile(rb"\n(" + _INLINE_WORD + rb"[.!?\x80\xa6\xe2]+[*_]*)[^\n]")
_CLOSING_REMARK = re.compile(rb"\n([*_]*[.!?\x80\xa6\xe2]+" + _INLINE_WORD + rb")[^a-z',*_\n-]")
_OPENING_SPACED = re.compile(
    rb"\n[ \t]*(" + _WORD_BYTE + rb"(?:" + _WORD_BYTE + rb"|[ \t]){1,40}?" + _REMARK_END + rb")[ \t]"
)
_CLOSING_SPACED = re.compile(
    rb"\n[ \t]*([*_]*(?:[.!?]|\xa6\x80\xe2)+(?:[a-z',*_ \t-]|\x98\x80\xe2|\x99\x80\xe2){0,40}?[A-Z])[*_]*[ \t]+[^a-zA-Z',*_\n \t-]"
)
# What may open a line before its first word: spaces, a bullet or a number (`- `, `3. `), emphasis. Written so that
# no two repeats can share a run of spaces (a line of 40,000 spaces would take quadratic time).
_LINE_HEAD = rb"\n[ \t]*(?:(?:[-+*>]|\d{1,3}[.)])[ \t]*)?[*_]*"
# Not in a line that ends in a colon, a lead-in (`In Lean 4, we can write:`), which may come before every block.
_NO_LEAD_IN = rb"(?![^\n]*:[ \t]*\n)"
# The openers, on the prose case folded with its spaces and digits: a word before a comma, a semicolon, a dash or an
# ellipsis (`Wait, ...`, `*Hmm*... `), or two words with nothing between them (`Okay so ...`, `Hmm wait ...`), not
# in a short sentence of words alone, a remark that `max_repeated_remarks` counts (`Let me verify.` 40 times is fine).
_OPENERS = (
    rb"([a-z']{2,12})[*_]*[ \t]*(?:[,;]|\xe2\x80[\x93\x94\x95\xa6]|\.\.\.)",
    rb"([a-z']{2,12}[ \t]+[a-z']{2,12})(?=[ \t,.!?*_\xe2])(?![ \t]*[a-z' \t,]{0,30}[.!?*_]*[ \t]*\n)",
)
_OPENER = [re.compile(_LINE_HEAD + opener + _NO_LEAD_IN) for opener in _OPENERS]
# The same, with the two dozen characters that follow: an enumeration's cases open alike, a value among the first
# twelve (`Let me try n = 3: ...`, `Similarly, n = 4 ...`), and count once.
_OPENER_GOING_ON = [re.compile(_LINE_HEAD + opener + _NO_LEAD_IN + rb"([^\n]{0,24})") for opener in _OPENERS]
# The gates of `_OPENER`, on keys (spaces and digits deleted): a word of any length before the same marks, and a
# line's first four letters (two words have four at least). Each finds every line its opener finds, and more.
_OPENER_GATES = (
    # `(?=(...))\1` takes the whole word at once (an atomic group), so no shorter one is tried.
    re.compile(rb"\n[-+*>.)*_]*(?=([a-z']{2,}))\1[*_]*(?:[,;]|\xe2\x80[\x93\x94\x95\xa6]|\.\.\.)"),
    re.compile(rb"\n[-+*>.)*_]*([a-z']{4})"),
)
# A question closing a line after a comma, a dash or a parenthesis (`..., right?`, `... — isn't it?!`), on the
# reversed keys (the look-ahead asks for a `?`, so that a run of marks is read once). Not a statement: an enumeration
# closes its cases alike (`..., which is even.`).
_QUESTION_CLOSER = re.compile(rb"\n([*_)]*(?=[!?]*\?)[!?]+[*_]*[a-z']{2,12}(?:[,(-]|\x94\x80\xe2|\x93\x80\xe2))")
# Fewest lines one opener must open before its share is measured: a short thinking may open a third of its lines
# with `So,`, and a stock phrase written 30 times across a thinking (`Hmm, this doesn't seem right.`) is no tic.
_OPENER_FLOOR = 40
# Lines before a tactic block that lead into it (`Let me write it.` then `In Lean 4, we can write:`), each counted
# once less.
_REMARK_LEAD_INS = 2
# Fewest characters of a line, spaces deleted, that the confirmation of `often_repeated` counts (as a long line's key).
_OFTEN_MIN_CHARS = 40
# The units `_echo_rate` compares: sentences and clauses of this many bytes or more (case folded, spaces deleted,
# digits kept), about six words; shorter ones (`So x = 3.`, `Wait,`) are echoed in real reasoning.
_ECHO_CHARS = 30
# How many units before it, on its line, a unit's copy may be for `_echo_rate`: a sentence or a pair written twice.
_ECHO_WINDOW = 8
# The longest stretch, in key bytes (about two words), that a unit restating the one before it may drop, add or
# change at each of two places (`_restated`).
_ECHO_EDIT = 12
# How a unit restates the one before it (`_restated`): not at all, the same with words dropped or added, or with a
# word changed.
_DIFFERENT, _AGAIN, _CHANGED = 0, 1, 2
# Where `_echo_rate`'s gate probes a long line, in eighths of it: over the whole line, as a copy may come anywhere
# in it, and at three places of a sentence written twice (its first quarter, its third, its middle), as a word
# changed in the copy may hide one.
_ECHO_PROBES = (1, 3, 6)
# Fewest different bytes in a phrase that `_doubled` tells written twice (a rule of `═` or `-` has one to three).
_PHRASE_BYTES = 8
# Fewest key bytes of a line that `_echo_rate` reads (two units), and of a unit `_doubled` may find written twice.
_ECHO_LINE = 2 * _ECHO_CHARS
# Fewest echoing lines that `_echo_rate` judges, whatever their rate (a short reasoning that doubles a remark or two).
_MIN_ECHOES = 4
# Case folded; sentence and clause ends become unit breaks (NUL); spaces, tabs, Markdown marks and NUL deleted.
_ECHO_TABLE = bytes.maketrans(string.ascii_uppercase.encode() + b".?!;:,", string.ascii_lowercase.encode() + b"\0" * 6)
_ECHO_DELETE = b" \t-*#>`\0"
# What a line written twice may hold between its copies, deleted with the unit breaks: `L (L)`, `L | L`.
_BETWEEN_COPIES = b"\0()[]|"
# Clause breaks too, besides ASCII's: dashes, an ellipsis, a middle dot, an arrow, a Chinese full stop, curly quotes.
_BREAKS = tuple(mark.encode() for mark in "\u2014\u2013\u2026\u00b7\u2192\u3002\u201c\u201d")
# A bare prose line (`_bare_lines`), matched from the newline before it: punctuation marks, symbols and spaces, and
# at most one ASCII letter or digit (`---`, `* * *`, `x`, `(a)`; not `So:`); not a display formula's delimiter (`$$`,
# `\[`, `\]`) or a fence, which the other rules read. The marks are ASCII's, Latin-1's (`·`) and those from U+2000 to
# U+257F (dashes, arrows, operators, box drawing). No mark is a letter or digit, so the engine never backtracks far.
_BARE_MARK = rb"(?:[!-/:-@\[-`{-~ \t]|\xc2[\xa1-\xbf]|\xe2[\x80-\x95][\x80-\xbf])"
_BARE_LINE = re.compile(
    rb"\n(?![ \t]*(?:\$\$|\\\[|\\\]|```)[ \t]*\n)(?=[ \t]*[^\s])"
    + _BARE_MARK
    + rb"*(?:[A-Za-z0-9]"
    + _BARE_MARK
    + rb"*)?(?=\n)"
)
_BARE_KEY = 16
# Bare lines that a short thinking may have whatever their share (`...`, `---`, `x` in 30 lines).
_FEW_BARE = 20
# Bytes of each probe `inline_copies` counts within a line.
_PROBE = 12
# A digit of a unit's key, which `_restated` and `_compared_units` read as a case's number.
_DIGIT = re.compile(rb"[0-9]")
# A number, in ASCII digits or as subscript or superscript digits (`h₀`, `x²`).
_NUMBER = re.compile("[0-9\u2080-\u2089\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+")


class Repetition(NamedTuple):
    """How repetitive a text is (see `measure_repetition`).

    Attributes:
        lines: Lines of the text, blank ones included.
        max_repeats: Occurrences of the most repeated long line, wherever they are.
        duplicate_ratio: Share of the long lines that repeat an earlier one.
        consecutive: Copies in a row of the most looped passage (1 when nothing repeats back to back).
        loop_lines: Lines in one copy of that passage (long ones, or every non-blank one once confirmed; 0 when
            there is no loop).
        near_duplicates: Most near-duplicates of one line of at least `near_duplicate_min_chars` (itself included),
            or copies of its sentences in another order when more than `max_near_duplicates`.
        blank_lines: Most lines in a row that are blank once spaces and digits are deleted, when more than
            `max_blank_lines` (0 otherwise).
        counts: How often each long line's key occurs.
        key_counts: How often each non-blank line's key occurs.
        key_bytes: Bytes of the keys, newlines aside: the text's UTF-8 bytes other than spaces, tabs and digits.
        short_repeats: Occurrences of the most repeated short non-blank line (under `repetition_min_chars`), when
            there are more short lines than `max_short_line_repeats` (0 otherwise: it cannot exceed the bound).
        longest_line: Bytes in the longest line's key.
        anchored_copies: Most long lines that share the same anchored band (see `_anchored_copies`), when there
            are more long lines than `max_paraphrased_copies` (0 otherwise).
        paragraph_repeats: Occurrences of the most repeated paragraph (a stretch between blank lines, by its keys)
            of at least `repetition_min_chars` bytes, when the lines that occur more than `max_paragraph_repeats`
            times could make up such a paragraph (0 otherwise: no paragraph can then occur more often than that).
        template_repeats: Copies in a row of the most looped passage of lines alike but for a word or two (see
            `_templates`), when more than `max_template_repeats` (0 otherwise).
        alike_lines: Most lines alike to one line with a word changed, wherever they are (see `_alike_groups`),
            when more than `max_alike_lines` (0 otherwise).
        short_loop: Copies in a row of the most looped passage of non-blank lines of any length (digits kept), when
            more than `max_short_consecutive_repeats` (0 otherwise).
        medium_repeats: Occurrences of the most repeated line of `template_min_chars` to `repetition_min_chars`
            key bytes, when there are more such lines than `max_medium_line_repeats` (0 otherwise).
        reworded: Lines in a group of long lines that are one line reworded in a word or two at places that vary
            from copy to copy (see `_reworded_copies`), the first found of more than `max_reworded_lines` (0 when
            there is none).
        often_repeated: Occurrences of the long lines that each occur at least `_OFTEN` times, all together.
        inline_repeats: Copies of one phrase within the most repetitive long line (`Wait. Wait. Wait.`), when more
            than `max_inline_repeats` (0 otherwise; see `inline_copies`).
        passage_repeats: Occurrences of the most repeated paragraph of two lines or more (and twice
            `repetition_min_chars` key bytes), digit for digit, when more than `max_passage_repeats` (0 otherwise).
        long_repeats: Occurrences of the most repeated line of `_LONG_LINE` key bytes or more, digit for digit, when
            more than `max_long_line_repeats` (0 otherwise).
        duplicate_share: Share of the distinct long lines that occur more than once, digit for digit, when over
            `max_duplicate_line_share` by keys with at least `_MIN_DUPLICATES` such lines (0 otherwise; see
            `_duplicate_share`).
        echo_rate: Share of the long lines that echo (a sentence or clause said again at once on its line, or one
            phrase written twice), when `_MIN_ECHOES` lines at least do (0 otherwise; see `_echo_rate`).
        bare_lines: Prose lines of punctuation marks and symbols with one letter or digit at most, when more than
            `max_bare_lines` or a third of the lines (0 otherwise; see `_bare_lines`).
        opener_share: Share of the non-blank lines that the most common opener opens or closer closes (see
            `_opener_share`), when it takes `_OPENER_FLOOR` lines or more and more than `max_opener_share` of them
            (0 otherwise).
        remarks: Occurrences, all together, of the remarks that each occur three times or more (`Wait.` on its own
            line, or opening or closing a line), lead-ins aside, when more than `max_repeated_remarks` (0 otherwise;
            see `_repeated_remarks`).
        mid_line_remarks: Occurrences of the short sentences said twice or more in the middle of a line, when over
            `max_mid_line_remarks` (0 otherwise; see `_mid_line_remarks`).
        shuffled_copies: Most long prose lines that hold a sentence of a paragraph shuffled again and again, when
            more than `max_shuffled_copies` (0 otherwise; see `_shuffled_copies`).
        reworded_share: Share of the distinct lines of `_REWORDED_SHARE_BYTES` key bytes or more that have a copy,
            word for word or changed at one place, when over `max_reworded_line_share` (0 otherwise; see
            `_reworded_share`).
        sentence_openers: Share of the sentences inside a line that one tic opens, when it opens `_TIC_FLOOR` or
            more and more than `max_sentence_opener_share` of them (0 otherwise; see `_sentence_tics`).
        sentence_closers: Share of the sentences that end in a word that one tic closes, when it closes
            `_TIC_FLOOR` or more and more than `max_sentence_closer_share` of them (0 otherwise; the same).
        counted_lines: Lines in runs of one sentence written again and again with a counter, all together, when
            more than `max_counted_lines` (0 otherwise; see `_counted_lines`).
        clause_repeats: Occurrences of the most repeated stretch of clauses, whatever the line breaks, when more than
            `max_clause_repeats` (0 otherwise; see `_clause_repeats`).
    """

    lines: int
    max_repeats: int
    duplicate_ratio: float
    consecutive: int
    loop_lines: int
    near_duplicates: int
    blank_lines: int
    counts: Counter[bytes]
    key_counts: Counter[bytes]
    key_bytes: int
    short_repeats: int = 0
    longest_line: int = 0
    anchored_copies: int = 0
    paragraph_repeats: int = 0
    template_repeats: int = 0
    alike_lines: int = 0
    medium_repeats: int = 0
    short_loop: int = 0
    reworded: int = 0
    often_repeated: int = 0
    inline_repeats: int = 0
    duplicate_share: float = 0.0
    passage_repeats: int = 0
    long_repeats: int = 0
    echo_rate: float = 0.0
    bare_lines: int = 0
    remarks: int = 0
    opener_share: float = 0.0
    shuffled_copies: int = 0
    reworded_share: float = 0.0
    mid_line_remarks: int = 0
    sentence_openers: float = 0.0
    sentence_closers: float = 0.0
    counted_lines: int = 0
    clause_repeats: int = 0


def measure_repetition(
    data: bytes,
    config: FormatConfig,
    text: Callable[[], str],
    edges: Callable[[], Sequence[int]] = tuple,
    *,
    wide_spaces: bool = True,
) -> Repetition:
    """Measure the repeated lines, the longest loop and the near-duplicates of a completion's prose.

    `data` is the prose in UTF-8, and `text()` gives it as a string (only asked for to confirm a loop). `edges()`
    gives the lines of the prose that follow a tactic or Lean block of the thinking (`Completion.block_edges`): lines
    on either side of a block are not in a row, and the line before one may lead into each (`In Lean 4, we can
    write:`); they are only asked for when a loop or a repeated line must be confirmed. `wide_spaces` False says
    the prose holds no no-break, thin or ideographic space (junk a caller has counted), so none is looked for.
    """
    # The prose's lines, split once for all the rules that confirm on them, and only when one must.
    text_lines = lru_cache(maxsize=None)(lambda: text().split("\n"))
    keys = data.translate(_KEY_TABLE, _KEY_DELETE)
    key_bytes = len(keys)  # the text's size: subscripts are text, only no part of a line's key
    keys = _without_script_digits(keys)
    # One regex pass finds the lines of both sizes that are measured: long lines, and the template loop's units.
    least = min(config.repetition_min_chars, config.template_min_chars)
    found = long_keys(keys, least)
    long = _at_least(found, config.repetition_min_chars, least)
    units = _at_least(found, config.template_min_chars, least)
    lines = keys.count(b"\n") + 1
    blank_lines = over_limit_run(keys, b"\n", config.max_blank_lines, offset=1)
    # Every line's key and how often each non-blank one occurs: what the short-line measures share.
    key_lines = keys.split(b"\n")
    line_counts = Counter(key_lines)
    line_counts.pop(b"", None)
    short_repeats = _short_repeats(line_counts, keys, lines - 1 - len(long), config)
    bare = _bare_lines(data, line_counts, config.max_bare_lines)
    # Each line of a paragraph that occurs `n` times occurs `n` times at least: paragraphs are only counted when a
    # line occurs often enough for one to break the bound.
    top_line = max(line_counts.values(), default=0)
    paragraph_limit = config.max_paragraph_repeats
    counted = paragraph_limit is None or (
        top_line > paragraph_limit and _paragraph_room(line_counts, paragraph_limit) >= config.repetition_min_chars
    )
    paragraphs = _paragraph_repeats(keys, config.repetition_min_chars) if counted else 0
    template, alike = _templates(units, key_lines, config, text_lines, edges)
    medium = _medium_repeats(units, key_lines, len(units) - len(long), config, edges)
    remarks = _repeated_remarks(data, keys, line_counts, config, edges)
    openers = _opener_share(keys, data, sum(line_counts.values()), config.max_opener_share)
    short_loop = _short_loop(key_lines, line_counts, top_line, config, text_lines, edges)
    counter_runs = _counted_lines(key_lines, line_counts, top_line, config, text_lines)
    clauses = _clause_repeats(data, config.max_clause_repeats, wide_spaces)
    if clauses:  # confirmed with each tactic block a break of its own: a lead-in line before each is no loop
        clauses = _clause_repeats(_block_marked(text_lines(), edges()), config.max_clause_repeats, wide_spaces)
    counts = Counter(long)
    reworded = _reworded_copies(long, counts, key_lines, config, text_lines)
    inline = _inline_repeats(long, key_lines, config.max_inline_repeats, text_lines)
    echoes = _echo_rate(long, key_lines, config.max_echo_rate, text_lines)
    shuffled = _shuffled_copies(long, config.repetition_min_chars, config.max_shuffled_copies)
    if not long:
        return Repetition(
            lines,
            0,
            0.0,
            1,
            0,
            0,
            blank_lines,
            Counter(),
            line_counts,
            key_bytes - lines + 1,
            short_repeats,
            0,
            0,
            paragraphs,
            template,
            alike,
            medium,
            short_loop,
            reworded,
            0,
            inline,
            echo_rate=echoes,
            bare_lines=bare,
            remarks=remarks,
            opener_share=openers,
            counted_lines=counter_runs,
            clause_repeats=clauses,
        )
    most = max(counts.values())
    ratio = 1.0 - len(counts) / len(long)
    copies, period, _ = _longest_loop(long, counts) if most > 1 else (1, 0, 0)
    limit = config.max_consecutive_repeats
    if limit is not None and copies > limit:
        # Confirmed digit for digit on every non-blank line, made only when a loop by keys must be confirmed: the
        # short lines between copies count here, so cases that each end in one verdict (`- n = 1: ...`, then `This
        # is not divisible by 7.`) are an enumeration, while a `Wait.` between copies is part of the loop.
        exact = list(filter(None, (" ".join(line.lower().split()) for line in text_lines())))
        copies, period, _ = _longest_loop(exact, Counter(exact))
    return Repetition(
        lines,
        most,
        ratio,
        copies,
        period,
        max(
            _near_duplicates(counts, config.near_duplicate_min_chars),
            _reordered_copies(long, config.near_duplicate_min_chars, config.max_near_duplicates),
        ),
        blank_lines,
        counts,
        line_counts,
        key_bytes - lines + 1,
        short_repeats,
        _longest(long),
        _anchored_copies(long) if _over(len(long), config.max_paraphrased_copies) else 0,
        paragraphs,
        template,
        alike,
        medium,
        short_loop,
        reworded,
        _often_repeated(counts, most, config.max_often_repeated_lines, text_lines),
        inline,
        _duplicate_share(long, counts, key_lines, config, text_lines),
        max(
            _passage_repeats(keys, line_counts, top_line, key_lines, config, text_lines),
            _pair_repeats(long, most, key_lines, config, text_lines),
        ),
        _long_line_repeats(counts, data, key_lines, most, config.max_long_line_repeats, text_lines),
        echoes,
        bare,
        remarks,
        openers,
        shuffled,
        _reworded_share(counts, config.max_reworded_line_share),
        _mid_line_remarks(data, config.max_mid_line_remarks),
        *_sentence_tics(data, config.max_sentence_opener_share, config.max_sentence_closer_share),
        counted_lines=counter_runs,
        clause_repeats=clauses,
    )


def _mid_line_remarks(data: bytes, limit: int | None) -> int:
    """Occurrences of the short sentences said twice or more in the middle of a line, when over `limit` (else 0).

    A sentence of words alone (eight at most, ending in `.`, `!`, `?`, `...` or `…`, in either case) after a sentence
    that ends in a word and a space, with more text after it on the line: `Wait.` (or `wait...`) inserted after every
    sentence, which opens and closes no line and stands on none. A verdict after a computation (`3 * 4 = 12. Correct.`) is no remark. `data`
    is the prose in UTF-8. Real prose says one such sentence twice at most (`There's a contradiction here.`).
    """
    if limit is None:
        return 0
    found = Counter(map(bytes.lower, _MID_LINE_REMARK.findall(data)))
    total = sum([n for n in found.values() if n > 1])
    return total if total > limit else 0


# A remark inside a line: a sentence of words alone after a sentence that ends in a word (not in a value or a
# formula: `3 * 4 = 12. Correct.` checks a computation) and one space, with text after it. A sentence ends in `.`,
# `!`, `?`, `...` or `…`, and a remark may start in lower case (`wait.`). Its end mark is looked ahead to, not taken,
# so that the next remark can start there; the pattern starts with a character class (`\xa6` ends `…` in UTF-8),
# which `re` finds fast, and looks behind only there.
_MID_LINE_REMARK = re.compile(
    rb"[.!?\xa6](?:(?<=[A-Za-z][.!?])|(?<=[A-Za-z]\.\.\.)|(?<=[A-Za-z]\xe2\x80\xa6))"
    rb" ([A-Za-z][-A-Za-z',]*(?: [-A-Za-z',]+){0,7})(?=(?:[.!?]|\.\.\.|\xe2\x80\xa6) \S)"
)


def _sentence_tics(data: bytes, opener_limit: float | None, closer_limit: float | None) -> tuple[float, float]:
    """Shares of the sentences that one tic opens inside a line and that one closes, each when over its limit (else 0).

    A tic opens a sentence as one or two words before a comma, a semicolon, a colon, a dash or an ellipsis (`Wait, `,
    `Hmm... `, `Wait: `), after a sentence that ends in a word and a space; it closes one as up to three words after
    such a mark that follows 16 characters of the sentence with no digit (`, I think.`, ` — wait.`; `Wait, no.` is an
    opener and a word, `= 10, which is impossible.` a case's verdict). Openers are shared out among the sentences that
    start inside a line, closers among those that end in a word; each is measured once it takes `_TIC_FLOOR` different
    sentences (`_most_tics`). `max_opener_share` sees a tic at the head or the end of each line, this one in the middle
    of them: `Wait, ` before every sentence. Real prose opens at most 16% of its sentences inside a line with one word
    (`Instead, `) and closes at most 6 sentences alike (`, which is impossible.`, 1.5%). `data` is the prose in UTF-8.
    """
    openers = closers = 0.0
    if opener_limit is not None:
        most = _most_tics(_SENTENCE_OPENER.findall(data))
        if most >= _TIC_FLOOR and (share := most / len(_SENTENCE_INSIDE.findall(data))) > opener_limit:
            openers = share
    if closer_limit is not None:
        # Read on the reversed text, from the sentence's end mark, which `re` finds fast.
        most = _most_tics(_SENTENCE_CLOSER.findall(b"\n" + data[::-1]))
        if most >= _TIC_FLOOR and (share := most / len(_SENTENCE_END.findall(data))) > closer_limit:
            closers = share
    return openers, closers


def _most_tics(found: list[tuple[bytes, bytes]]) -> int:
    """The most sentences one tic opens or closes, from `(tic, the rest of its sentence)` pairs, the tic in any case.

    A sentence said again is counted once, its digits aside: a looped paragraph is the loop rules', and the cases of
    an enumeration that share a verdict (`- $n = 3$: the left side exceeds the right side, which is impossible.`) are
    one sentence with values changed.
    """
    sentences = {(tic.lower(), rest.translate(None, _DIGITS)) for tic, rest in found}
    return max(Counter(tic for tic, _ in sentences).values(), default=0)


_DIGITS = b"0123456789"
# The sentences that `_sentence_tics` shares tics among: those that end in a word, and those of them that another
# follows on its line; a tic that opens one, and one that closes one (reversed: the words, then the mark, read
# backwards, and a word before the mark), each with the rest of its sentence.
_SENTENCE_END = re.compile(rb"[.!?](?<=[A-Za-z][.!?])(?= |$)", re.MULTILINE)
_SENTENCE_INSIDE = re.compile(rb"[.!?](?<=[A-Za-z][.!?]) [A-Za-z]")
_SENTENCE_OPENER = re.compile(
    rb"[.!?](?<=[A-Za-z][.!?]) ([A-Za-z]+(?: [A-Za-z]+)?)(?:[,;:]| -| \xe2\x80\x94|\.\.\.|\xe2\x80\xa6) ([^\n.!?]*)"
)
_SENTENCE_CLOSER = re.compile(
    rb"[.!?](?<![^ \n][.!?])[.!?]*([A-Za-z]+(?: [A-Za-z]+){0,2}) (?:[,;]|- |\x94\x80\xe2 |\.\.\.|\xa6\x80\xe2)(?=([A-Za-z][^\n.!?0-9]{15}[^\n.!?]*))"
)
# Fewest sentences one tic must open or close before its share is measured.
_TIC_FLOOR = 10


def _reworded_share(counts: Counter[bytes], limit: float | None) -> float:
    """Share of the distinct lines of `_REWORDED_SHARE_BYTES` key bytes or more that have a copy, when over `limit`.

    A copy is the line again, or the line changed at one place: a word or two added, dropped or changed
    (`_one_place_apart`). The thinking written again from the top, each line reworded a little, leaves groups of two
    or three copies, which no group bound sees, but nearly every line is in one; real thinkings restate a third of
    their long lines at most (formulas with a term changed). `counts` are the long lines' keys, counted. A copy
    changed at one place keeps its opening or its ending band (`_REWORDED_SHARE_BAND` bytes), so only lines that
    share one are compared, each with the next `_REWORDED_SHARE_PEERS` that do; and only when those lines and the
    repeated ones could make up the share. A line alike to more than `_REWORDED_SHARE_PARTNERS` others is a table's
    row, not a copy.
    """
    if limit is None:
        return 0.0
    keys = list(compress(counts, map(_REWORDED_SHARE_BYTES.__le__, map(len, counts))))
    if len(keys) < _REWORDED_SHARE_LINES:
        return 0.0  # a recap restating five lines of a short thinking is no second thinking
    band = _REWORDED_SHARE_BAND
    head, tail = itemgetter(slice(None, band)), itemgetter(slice(-band, None))
    heads, tails = Counter(map(head, keys)), Counter(map(tail, keys))
    # A line whose bands no other line shares has no copy changed at one place. A band shared by others is shared
    # by two lines at least, so at least `2 x distinct - lines` lines have an opening of their own, and as many an
    # ending: a bound on the lines that may have a copy, from the counters' sizes alone.
    lines = len(keys)
    alone = max(0, 2 * len(heads) + 2 * len(tails) - 3 * lines)
    copied = {key for key in keys if counts[key] > 1}
    if len(copied) + lines - alone <= max(limit * lines, _REWORDED_SHARE_LINES - 1):
        return 0.0
    banded = [key for key in keys if heads[head(key)] > 1 or tails[tail(key)] > 1]
    groups: dict[bytes, list[bytes]] = {}
    for key in banded:
        groups.setdefault(b"<" + key[:band], []).append(key)
        groups.setdefault(key[-band:] + b">", []).append(key)
    pairs: set[tuple[bytes, bytes]] = set()  # a pair may share both bands: counted once
    for group in groups.values():
        for i, key in enumerate(group):
            for other in group[i + 1 : i + 1 + _REWORDED_SHARE_PEERS]:
                if (key, other) not in pairs and _one_place_apart(key, other):
                    pairs.add((key, other))
    partners = Counter(chain.from_iterable(pairs))
    # A line alike to many others is a table's row or a template's (`The variable a appears only in the first
    # factor`, then `b` and `second`): a thinking written again gives each line a copy or two.
    copied.update(key for key, alike in partners.items() if alike <= _REWORDED_SHARE_PARTNERS)
    share = len(copied) / lines
    return share if share > limit and len(copied) >= _REWORDED_SHARE_LINES else 0.0


def _one_place_apart(a: bytes, b: bytes) -> bool:
    """Whether keys `a` and `b` differ at one place only, by `_REWORDED_SHARE_EDIT` bytes at most on either side.

    The common opening and ending are found in C: the highest differing bit of the two openings as numbers, and the
    lowest of the two endings.
    """
    if len(a) > len(b):
        a, b = b, a
    size = len(a)
    if len(b) - size > _REWORDED_SHARE_EDIT:
        return False
    short = int.from_bytes(a, "big")
    opening = size - ((short ^ int.from_bytes(b[:size], "big")).bit_length() + 7) // 8
    ending_bits = short ^ int.from_bytes(b[len(b) - size :], "big")
    ending = ((ending_bits & -ending_bits).bit_length() - 1) // 8 if ending_bits else size
    kept = min(opening + ending, size)
    return size - kept <= _REWORDED_SHARE_EDIT and len(b) - kept <= _REWORDED_SHARE_EDIT


# `_reworded_share`'s lines (about eight words), the fewest of them it judges and of those with a copy, the bands
# that find a copy, how many lines sharing a band each is compared with, the most copies a line may have (a row of a
# table has more), and how many key bytes a change at one place may take (a word or two).
_REWORDED_SHARE_BYTES = 60
_REWORDED_SHARE_LINES = 12
_REWORDED_SHARE_BAND = 24
# Bytes from a clause's start that `_clause_repeats` compares (whitespace deleted): about twenty words.
_CLAUSE_STRETCH = 120
# A stretch with this many TeX commands or dollar signs is a formula's, not a passage's (`_clause_repeats`).
_MATH_MARKS = re.compile(rb"(?:[^\\$]*[\\$]){14}")
# What `_clause_repeats` deletes from the prose, so that a line break moved, a word emphasised or a counter in
# brackets is no change: ASCII whitespace and emphasis marks, counters, and no-break, thin and ideographic spaces.
_STREAM_DELETE = b" \t\n\r\x0b\x0c*_"
_COUNTER = re.compile(rb"\([0-9]+\)")
_WIDE_SPACE = re.compile(rb"\xc2\xa0|\xe2\x80[\x80-\x8b\xaf]|\xe2\x81\x9f|\xe3\x80\x80")
# Bytes of the probes `_clause_repeats` counts in a clause long enough to hold `_RUN_PROBES` of them: a copy of a
# formula's parts is shorter.
_RUN_PROBE = 80
_RUN_PROBES = 8
_REWORDED_SHARE_PEERS = 8
_REWORDED_SHARE_PARTNERS = 4
_REWORDED_SHARE_EDIT = 24


def _echo_rate(
    long: list[bytes], key_lines: list[bytes], limit: float | None, text_lines: Callable[[], list[str]]
) -> float:
    """The share of the long prose lines that echo, when `_MIN_ECHOES` of them at least do (0 otherwise).

    A line echoes (`_echoes`) when a unit of it does: a sentence or a clause of `_ECHO_CHARS` bytes or more (case
    folded, spaces deleted, digits kept) that restates the unit before it on its line (`_restated`: the same, or with
    a word or two dropped, added or changed), or repeats the unit two before it, or a pair of units a few before it
    (`_ECHO_WINDOW`). Short units between the copies are skipped (`Again:`, `Right.`; see `_compared_units`).
    Parallel cases are no echo: three units in a row that each change a word of the one before, or cases that share
    a refrain (`Taking the first factor ..., it stays positive. Taking the second factor ..., it stays positive.`).
    A line or a unit that is one phrase written twice (`X X`, the copy maybe with a word changed) echoes too. Every
    sentence said again at once (`X. X. Y. Y.`, `X. Again: X.`, `X. X-less-its-last-word.`), or every line doubled
    behind a space, a `;` or a dash, makes most long lines echo; real reasoning, at most two lines in all. Copies on
    other lines are the line rules' to count, with their allowances (a passage written up to four times in a row).

    The gate is in C: a line that holds an echo holds twice one of the probes at its first, third and sixth eighth
    (by the keys of the `long` lines, digits deleted; a copy may come anywhere in the line, and a word changed in it
    may hide a probe). Only such lines are split into units, on their text (each distinct key once: its first
    line in `key_lines`).
    """
    if limit is None or not long:
        return 0.0
    lines = list(compress(long, map(_ECHO_LINE.__le__, map(len, long))))
    if not lines:
        return 0.0
    sizes = list(map(len, lines))
    longest = max(sizes)
    candidates: set[bytes] = set()
    for eighths in _ECHO_PROBES:
        probes = map(_slice_bytes, lines, map(_probe_slices(eighths, longest).__getitem__, sizes))
        candidates.update(compress(lines, map((2).__le__, map(bytes.count, lines, probes))))
    if not candidates:
        return 0.0
    prose = text_lines()
    echoes = sum(_echoes(prose[key_lines.index(key)]) for key in candidates)
    return echoes / len(long) if echoes >= _MIN_ECHOES else 0.0


def _probe_slices(eighths: int, longest: int) -> list[slice]:
    """The slice of the `_PROBE` bytes at `eighths` eighths of a line, for each line length up to `longest` (kept)."""
    table = _PROBE_SLICES.setdefault(eighths, [])
    table.extend(slice(size * eighths // 8, size * eighths // 8 + _PROBE) for size in range(len(table), longest + 1))
    return table


_PROBE_SLICES: dict[int, list[slice]] = {}


def _echoes(line: str) -> bool:
    """Whether `line` says a unit again at once, or is one phrase written twice (see `_echo_rate`)."""
    keys = line.encode(errors=UTF8_ERRORS).translate(_ECHO_TABLE, _ECHO_DELETE)
    for mark in _BREAKS:
        keys = keys.replace(mark, b"\0")
    whole = keys.translate(None, _BETWEEN_COPIES)  # the line written twice, whatever stands between the copies
    if len(whole) >= _ECHO_LINE and _doubled(whole):
        return True
    units = list(filter(None, keys.split(b"\0")))  # `X. (X.)`: no empty unit between the copies
    if any(map(_doubled, [unit for unit in units if len(unit) >= _ECHO_LINE])):
        return True
    compared = _compared_units(units)
    links = [_DIFFERENT, *map(_restated, compared[1:], compared)]  # how each unit restates the one before it
    # A word changed from each unit to the next, three units or more in a row, is a list of parallel cases (`The
    # first factor is positive. The second factor is positive. The third ...`), not one unit said again.
    changed = [link == _CHANGED for link in links] + [False]
    return any(
        links[at] == _AGAIN
        or (changed[at] and not changed[at - 1] and not changed[at + 1])
        or (
            at >= 2
            and compared[at] == compared[at - 2]
            and not (at >= 3 and _restated(compared[at - 1], compared[at - 3]) == _CHANGED)
        )
        or any(
            compared[at] == compared[at - gap] and compared[at - 1] == compared[at - 1 - gap]
            for gap in range(3, min(at - 1, _ECHO_WINDOW) + 1)
        )
        for at in range(1, len(compared))
    )


def _compared_units(units: list[bytes]) -> list[bytes]:
    """The units of `_ECHO_CHARS` bytes or more, each with the short units before it that hold a number.

    A short unit without a number between two copies is a word said in passing (`X. Again: X.`, `X. Right. X.`) and
    is skipped; one with a number names a case (`For x = 3, ... . For x = 4, ...`), and stays in the unit after it,
    so the cases of an enumeration differ.
    """
    compared = []
    named = b""
    for unit in units:
        if len(unit) >= _ECHO_CHARS:
            compared.append(named + unit if named else unit)
            named = b""
        elif _DIGIT.search(unit):
            named += unit
    return compared


def _restated(unit: bytes, before: bytes, stretches: int = 2) -> int:
    """How `unit` restates `before`: `_AGAIN`, `_CHANGED` or `_DIFFERENT`.

    `_AGAIN` when it is `before` again, or with up to `stretches` stretches of `_ECHO_EDIT` bytes or fewer (a word or
    two) dropped or added; `_CHANGED` when a stretch is changed too, unless a number in it changed into a number:
    `x = 2 gives 5` after `x = 1 gives 3` is the next case worked, not an echo. Two stretches lie on either side of a
    kept core, found by a probe of `before`'s differing middle (or one beside it, where a stretch hid it); two words
    changed close together are one stretch of twice the length, when the unit keeps `_ECHO_CHARS` bytes around it.
    """
    if unit == before:
        return _AGAIN
    if abs(len(unit) - len(before)) > stretches * _ECHO_EDIT:
        return _DIFFERENT
    # Most pairs are two different sentences: they share neither end, nor the middle (which two stretches keep).
    if unit[0] != before[0] and unit[-1] != before[-1] and before[len(before) // 2 :][:_PROBE] not in unit:
        return _DIFFERENT
    shorter = min(len(unit), len(before))
    start = _common_opening(unit, before, shorter)
    end = _common_ending(unit, before, shorter - start)  # no longer than what the opening leaves of the shorter
    new, old = unit[start : len(unit) - end], before[start : len(before) - end]
    longest = max(len(new), len(old))
    if longest <= _ECHO_EDIT and not (new and old):
        return _AGAIN
    # One stretch changed; or two words changed close together, one stretch of two edits' length in a unit that
    # keeps most of its bytes.
    if longest <= _ECHO_EDIT or (stretches == 2 and longest <= 2 * _ECHO_EDIT and start + end >= _ECHO_CHARS):
        return _DIFFERENT if _DIGIT.search(new) and _DIGIT.search(old) else _CHANGED
    if stretches < 2:
        return _DIFFERENT
    middle = start + len(old) // 2
    for at in (middle, middle - _PROBE, middle + _PROBE):
        probe = before[at : at + _PROBE]
        if at <= start or len(probe) < _PROBE:
            continue
        found = unit.find(probe, at - _ECHO_EDIT, at + _ECHO_EDIT + _PROBE)
        if found > 0:
            first = _restated(unit[:found], before[:at], 1)
            second = _restated(unit[found:], before[at:], 1) if first else _DIFFERENT
            if second:
                return max(first, second)
    return _DIFFERENT


def _doubled(unit: bytes) -> bool:
    """Whether `unit` is one phrase written twice, the copy maybe with a word or two changed (`_restated`).

    The copy starts where the phrase's opening (`_PROBE` bytes) is found again past a third of `unit`, or else ends
    where its ending is. A run of one mark (`═══`) is no phrase: its halves are alike too.
    """
    half = len(unit) // 2
    if unit[:half] == unit[half:]:
        return len(set(unit[:half])) >= _PHRASE_BYTES
    third = len(unit) // 3
    at = unit.find(unit[:_PROBE], third)
    if at < 0:
        at = unit.rfind(unit[-_PROBE:], 0, len(unit) - third) + _PROBE
        if at < _PROBE:
            return False
    return _restated(unit[at:], unit[:at]) != _DIFFERENT and len(set(unit[:at])) >= _PHRASE_BYTES


def _clause_repeats(data: bytes, limit: int | None, wide_spaces: bool = True) -> int:
    """Occurrences of the most repeated stretch of clauses of the prose, whatever its line breaks, when over `limit`.

    The prose is read as one stream: its whitespace (no-break and thin spaces too), emphasis marks (`*`, `_`) and
    counters in brackets (`(3)`) are deleted, ASCII case is folded, digits are kept, and sentence and clause ends
    (`.?!;:,`) cut it into clauses. A stretch is the `_CLAUSE_STRETCH` bytes from a clause's start on. A paragraph
    looped with its lines broken at new places in each copy (or its sentences put on new lines) repeats no line,
    but every stretch of it. The cases of an enumeration differ in their numbers, and a stretch of one runs into the
    next case's, unless the verdict they share is that long. A stretch of a formula (`_MATH_MARKS`) is left out:
    real reasoning restates a formula eight times. A clause long enough to hold `_RUN_PROBES` probes (a passage
    without clause ends looped, whose copies make one clause) counts its probe at a quarter, a half and three
    quarters of it.
    """
    if limit is None:
        return 0
    stream = _COUNTER.sub(b"", data.translate(_ECHO_TABLE, _STREAM_DELETE))
    if wide_spaces:
        stream = _WIDE_SPACE.sub(b"", stream)
    clauses = stream.split(b"\0")
    # A stretch occurs no more often than the clause it starts with: only the clauses that occur over the limit
    # (and are no word or two, which the clause after them starts a stretch too) start one.
    counts = Counter(clauses)
    frequent = {clause for clause in compress(counts, map(limit.__lt__, counts.values())) if len(clause) >= _PROBE}
    most = 0
    if frequent:
        starts = list(accumulate(map((1).__add__, map(len, clauses)), initial=0))
        starts = list(compress(starts, map(frequent.__contains__, clauses)))
        stretches = map(stream.__getitem__, map(slice, starts, map(_CLAUSE_STRETCH.__add__, starts)))
        counts = Counter(compress(stretches, map(_CLAUSE_STRETCH.__le__, map(len(stream).__sub__, starts))))
        # A formula restated (`$\frac{\log 5}{\log 4} \cdot ...$` eight times in a real thinking) is no passage.
        most = next((n for stretch, n in counts.most_common() if _MATH_MARKS.search(stretch) is None), 0)
    for run in compress(clauses, map((_RUN_PROBES * _RUN_PROBE).__le__, map(len, clauses))):
        size = len(run)
        most = max(most, *(run.count(run[at : at + _RUN_PROBE]) for at in (size // 4, size // 2, 3 * size // 4)))
    return most if most > limit else 0


def _block_marked(lines: list[str], edges: Sequence[int]) -> bytes:
    """The prose's `lines` in UTF-8 with a line of its own before each line that follows a block, numbered apart.

    A stretch of the prose that runs over a block then holds the block's number, so the lead-in lines of a dozen
    tactic blocks (`Let's try another hint:`) make no stretch that repeats.
    """
    marked = list(lines)
    for number, at in enumerate(sorted(set(edges), reverse=True)):
        marked.insert(at, f"\0{number}\0")
    return "\n".join(marked).encode(errors=UTF8_ERRORS)


def _pair_repeats(
    long: list[bytes], most: int, key_lines: list[bytes], config: FormatConfig, text_lines: Callable[[], list[str]]
) -> int:
    """Occurrences of the most repeated pair of two different long lines in a row, when over `max_passage_repeats`.

    Short lines between them aside: a passage glued to whatever paragraph comes before each copy has no paragraph of
    its own, but its lines follow each other in every copy. Counted by keys in C first, then confirmed digit for
    digit, so cases worked one by one (`n = 3:` and `n = 4:` with the same words around new numbers) are different
    pairs; a line written again and again in a row is a loop of one line (`max_consecutive_repeats`), not a pair.
    """
    limit = config.max_passage_repeats
    # Each line of a pair written `n` times is written `n` times: `most` (the most repeated long line) rules most out.
    if limit is None or most <= limit or _most_pairs(long, limit) <= limit:
        return 0
    most = _most_pairs(_exact_lines(text_lines(), key_lines, config.repetition_min_chars), limit)
    return most if most > limit else 0


def _exact_lines(text_lines: list[str], key_lines: list[bytes], least: int) -> list[str]:
    """The `text_lines` whose key has `least` bytes or more, case folded with spaces deleted but digits kept.

    What a count by keys is confirmed on: `key_lines` are the lines' keys, in order.
    """
    return ["".join(line.lower().split()) for line, key in zip(text_lines, key_lines, strict=True) if len(key) >= least]


def _most_pairs(lines: Sequence[Hashable], limit: int) -> int:
    """Occurrences of the most frequent pair of two different `lines` in a row, when over `limit` (else at most it)."""
    pairs = Counter(zip(lines, lines[1:], strict=False))
    most = max(pairs.values(), default=0)
    if most <= limit:
        return most  # in C: no pair at all is over the limit
    return max((n for (first, second), n in pairs.items() if first != second), default=0)


def _long_line_repeats(
    counts: Counter[bytes],
    data: bytes,
    key_lines: list[bytes],
    most: int,
    limit: int | None,
    text_lines: Callable[[], list[str]],
) -> int:
    """Occurrences of the most repeated line of `_LONG_LINE` key bytes or more, when over `limit` (0 otherwise).

    A sentence that long is written again on purpose only a few times (real thinkings: 6); a formula line or a
    short remark may recur far more often (`max_line_repeats`). Confirmed digit for digit, so an enumeration of
    long lines around new numbers is no repeat. Lines are also compared without the marks that disguise a copy
    (`_NOISE`, and a dash after a space; by keys of `data`, the text in UTF-8, first): copies with commas, dashes or
    `**` put in at other places in each copy are one line written again and again, while `a + b` and `a - b` differ.
    """
    if limit is None:
        return 0
    found = 0
    if most > limit and max((n for key, n in counts.items() if len(key) >= _LONG_LINE), default=0) > limit:
        found = max(Counter(_exact_lines(text_lines(), key_lines, _LONG_LINE)).values(), default=0)
    if found <= limit:
        cleaned = data.replace(b" -", b" ")
        if b"\xe2\x80" in cleaned or b"\xc2\xb7" in cleaned:  # the lead bytes of `_WIDE_NOISE`
            for mark in _WIDE_NOISE:
                cleaned = cleaned.replace(mark, b"")
        bare = cleaned.translate(_KEY_TABLE, _NOISE_BYTES).split(b"\n")
        if max(Counter(compress(bare, map(_LONG_LINE.__le__, map(len, bare)))).values(), default=0) > limit:
            lines = text_lines()
            exact = Counter(
                line.replace(" -", " ").lower().translate(_NO_NOISE)
                for line, key in zip(lines, bare, strict=True)
                if len(key) >= _LONG_LINE
            )
            found = max(found, *exact.values())
    return found if found > limit else 0


def _passage_repeats(
    keys: bytes,
    line_counts: Counter[bytes],
    top_line: int,
    key_lines: list[bytes],
    config: FormatConfig,
    text_lines: Callable[[], list[str]],
) -> int:
    """Occurrences of the most repeated passage (a paragraph of two lines or more), when over `max_passage_repeats`.

    A passage holds at least twice `repetition_min_chars` key bytes. Such a paragraph written `n` times writes each
    of its lines `n` times (`line_counts` holds every line's key, `top_line` the most any occurs: two lines of that
    many bytes must occur more than the bound), and its keys occur `n` times among the paragraphs of `keys` (split
    at blank lines, in C). Only then are paragraphs, the stretches between blank keys, confirmed on their lines
    (case folded, spaces deleted, digits kept), so cases worked one by one (`n = 3:` and `n = 4:` with the same
    words) differ.
    """
    limit = config.max_passage_repeats
    least = 2 * config.repetition_min_chars
    if limit is None or top_line <= limit:
        return 0
    often = [len(key) for key, n in line_counts.items() if n > limit]
    if len(often) < 2 or sum(often) < least:
        return 0
    # Stripped: three newlines in a row leave one on the paragraph after them.
    by_keys = Counter(map(bytes.strip, keys.split(b"\n\n"), repeat(b"\n")))
    by_keys.pop(b"", None)
    if max(by_keys.values(), default=0) <= limit:
        return 0
    if not any(n > limit and len(key) >= least and b"\n" in key for key, n in by_keys.items()):
        return 0
    paragraphs: Counter[tuple[str, ...]] = Counter()
    lines: list[str] = []
    size = 0
    for key, line in zip([*key_lines, b""], [*text_lines(), ""], strict=True):
        if key:
            lines.append("".join(line.lower().split()))
            size += len(key)
        elif lines:
            if len(lines) >= 2 and size >= least:
                paragraphs[tuple(lines)] += 1
            lines, size = [], 0
    most = max(paragraphs.values(), default=0)
    return most if most > limit else 0


def _duplicate_share(
    long: list[bytes],
    counts: Counter[bytes],
    key_lines: list[bytes],
    config: FormatConfig,
    text_lines: Callable[[], list[str]],
) -> float:
    """Share of the distinct `long` lines that occur more than once, digit for digit (case folded, spaces deleted).

    The whole thinking written twice repeats every line once; a passage looped four times, or checked again, repeats
    a few lines often. The gate is the share by keys (`counts`: digits deleted too), so it is only confirmed when
    that is over `max_duplicate_line_share` with `_MIN_DUPLICATES` repeated lines at least; a worked table
    (`1. 10N = 3`, `2. 100N = 33`, one key) repeats no line digit for digit.
    """
    limit = config.max_duplicate_line_share
    if limit is None or len(counts) <= 1:
        return 0.0
    repeated = len(counts) - list(counts.values()).count(1)
    if repeated < _MIN_DUPLICATES or repeated <= limit * len(counts):
        return 0.0
    exact = Counter(_exact_lines(text_lines(), key_lines, config.repetition_min_chars))
    repeated = len(exact) - list(exact.values()).count(1)
    return repeated / len(exact) if repeated >= _MIN_DUPLICATES else 0.0


def _often_repeated(counts: Counter[bytes], most: int, limit: int | None, text_lines: Callable[[], list[str]]) -> int:
    """Occurrences of the long lines that each occur at least `_OFTEN` times, all together.

    Counted by `counts` (keys) first; when that breaks `limit`, confirmed on the lines themselves (case folded,
    spaces deleted, digits kept), so an enumeration (`n = 3: not prime`, `n = 4: not prime`, one key) counts once
    for each value.
    """
    if most < _OFTEN:
        return 0
    found = sum([n for n in counts.values() if n >= _OFTEN])
    if limit is None or found <= limit:
        return found
    exact = Counter("".join(line.lower().split()) for line in text_lines())
    return sum([n for line, n in exact.items() if n >= _OFTEN and len(line) >= _OFTEN_MIN_CHARS])


def _inline_repeats(
    long: list[bytes], key_lines: list[bytes], limit: int | None, text_lines: Callable[[], list[str]]
) -> int:
    """Copies of one phrase within the most repetitive of the `long` lines, when more than `limit` (0 otherwise).

    The gate is in C: a line that is one phrase written again and again holds its middle band (of the key) that
    often. Only such lines are confirmed, on their text (`inline_copies`), so a formula whose terms differ in their
    numbers (a sum of fractions `1/2 + 1/3 + ...`, the same key band each time) is not a loop.
    """
    if limit is None:
        return 0
    # The probes counted do not overlap, so a key shorter than `limit + 1` of them cannot hold more.
    least = (limit + 1) * _PROBE
    lines = list(compress(long, map(least.__le__, map(len, long))))
    if not lines:
        return 0
    sizes = list(map(len, lines))
    middles = map(_slice_bytes, lines, map(_centred(_PROBE, max(sizes)).__getitem__, sizes))
    hits = list(map(bytes.count, lines, middles))
    if max(hits) <= limit:
        return 0
    prose = text_lines()
    most = max(inline_copies(prose[key_lines.index(key)]) for key, n in zip(lines, hits, strict=True) if n > limit)
    return most if most > limit else 0


def inline_copies(line: str) -> int:
    """How often a phrase is written within `line`: the fewest occurrences of three probes of it.

    The probes are `_PROBE` characters at its first quarter, its middle and its third quarter (1 for a line too
    short to hold three). `Wait. Wait. Wait. ...` or one sentence written twelve times on one line hold each probe about as often as
    the phrase is written; a line of reasoning or a long formula holds none of them more than a few times.
    """
    size = len(line)
    if size < 4 * _PROBE:
        return 1
    return min(line.count(line[at : at + _PROBE]) for at in (size // 4, size // 2, 3 * size // 4 - _PROBE))


def _at_least(lines: list[bytes], size: int, least: int) -> list[bytes]:
    """The `lines` of at least `size` bytes, when all of them have at least `least` (selected in C)."""
    return lines if size <= least else list(compress(lines, map(size.__le__, map(len, lines))))


def _templates(
    units: list[bytes],
    key_lines: list[bytes],
    config: FormatConfig,
    text_lines: Callable[[], list[str]],
    edges: Callable[[], Sequence[int]] = tuple,
) -> tuple[int, int]:
    """Lines that differ from each other only in a word or two: the longest loop of them, and the largest group.

    A loop whose copies differ in a counter (`Attempt one: ...`, `... (try iv)`, `Try (b): ... (try (b))`, a word in
    the middle, or a different line of the passage for each of those) has no two equal lines. But each of its lines
    keeps, from one copy to the next, an opening, an ending or a middle band of `config.template_band_chars` key
    bytes, and most of its text. The `units` are the keys of at least `config.template_min_chars` bytes among
    `key_lines` (every line's key).

    The gate is in C: a loop of `c` copies repeats a band of each of its lines `c` times, so only stretches of units
    that each hold a band seen more than `max_template_repeats` times (but for lone units between them: a copy that
    reworded both its ends) can hold one. There the passage is confirmed
    on the lines themselves (spaces deleted, digits kept) by `_alike`, so an enumeration (the same words around new
    numbers) is not a loop. The copies of a line spread out (other lines between them, or two loops interleaved)
    share a band too: each band seen more than `max_alike_lines` times is split into groups of alike lines
    (`_alike_groups`).

    Returns:
        (copies in a row of the longest loop, when more than `max_template_repeats`; lines in the largest group of
        lines alike to its leader with a word changed, when more than `max_alike_lines`), each 0 otherwise.
    """
    loop_limit, group_limit = config.max_template_repeats, config.max_alike_lines
    limits = [limit for limit in (loop_limit, group_limit) if limit is not None]
    if not limits or len(units) <= min(limits):
        return 0, 0
    band = config.template_band_chars
    heads = list(map(itemgetter(slice(None, band)), units))
    tails = list(map(itemgetter(slice(-band, None)), units))
    sizes = list(map(len, units))
    # Each unit's middle band, sliced in C: the slice for each length, looked up by the unit's length.
    middles = list(map(_slice_bytes, units, map(_centred(band, max(sizes)).__getitem__, sizes)))
    kinds = (heads, tails, middles)
    counts = [Counter(kind) for kind in kinds]
    tops = [max(count.values()) for count in counts]
    exact: dict[int, str] = {}
    where: list[int] = []  # each unit's line in the prose
    prose: list[str] = []

    def locate() -> list[int]:
        if not where:
            where.extend(compress(range(len(key_lines)), map(config.template_min_chars.__le__, map(len, key_lines))))
            prose.extend(text_lines())
        return where

    def lines(indices: Iterable[int]) -> list[str]:
        # The units' lines, spaces deleted and digits kept, made only for the units being confirmed.
        locate()
        found = []
        for i in indices:
            line = exact.get(i)
            if line is None:
                line = exact[i] = "".join(prose[where[i]].lower().split())
            found.append(line)
        return found

    loop = 0
    if loop_limit is not None and max(tops) > loop_limit:
        # Each unit's flag: whether one of its bands is seen more than `loop_limit` times, the kinds or-ed as integers.
        mask = 0
        for kind, count, top in zip(kinds, counts, tops, strict=True):
            if top > loop_limit:
                hot = set(compress(count, map(loop_limit.__lt__, count.values())))
                mask |= int.from_bytes(bytes(map(hot.__contains__, kind)), "big")
        flags = mask.to_bytes(len(units), "big")
        # A copy that reworded its opening and its ending keeps no band of the others: a stretch may hold up to
        # `_FLAG_GAP` such units in a row between flagged ones.
        for stretch in re.finditer(rb"\x01(?:\x00{0,%d}\x01){%d,}" % (_FLAG_GAP, loop_limit), flags):
            # Lines on either side of a tactic block were not written in a row (twelve hints tried, each in a block).
            for start, end in _segments(locate(), *stretch.span(), edges()):
                if end - start > loop_limit:
                    at = slice(start, end)
                    loop = max(loop, _similar_loop(lines(range(start, end)), (heads[at], tails[at], middles[at])))
    group = 0
    if group_limit is not None and max(tops) > group_limit:
        group = _largest_group(kinds, counts, group_limit, lines)
    return (
        loop if loop_limit is not None and loop > loop_limit else 0,
        group if group_limit is not None and group > group_limit else 0,
    )


def _largest_group(
    kinds: tuple[list[bytes], ...],
    counts: list[Counter[bytes]],
    limit: int,
    lines: Callable[[Iterable[int]], list[str]],
) -> int:
    """The largest group of alike lines (`_alike_groups`) among the units sharing a band seen more than `limit` times.

    `kinds` are the units' bands of each kind (opening, ending, middle), `counts` how often each band occurs, and
    `lines(indices)` gives those units' lines.
    """
    group = 0
    numbers: dict[str, tuple[str, ...]] = {}  # each line's numbers, shared by the bands of a line
    for kind, count in zip(kinds, counts, strict=True):
        hot = set(compress(count, map(limit.__lt__, count.values())))
        if not hot:
            continue
        members: dict[bytes, list[int]] = {}
        for i in compress(range(len(kind)), map(hot.__contains__, kind)):
            members.setdefault(kind[i], []).append(i)
        group = max(group, *(_alike_groups(lines(indices), limit, numbers) for indices in members.values()))
    return group


def _alike_groups(lines: list[str], limit: int, numbers: dict[str, tuple[str, ...]]) -> int:
    """Lines in the largest group of `lines` alike to its leader with a word changed (`_alike`), leader included.

    Only a group of more than `limit` lines and at least `_MIN_VARIANTS` different ones counts (0 when there is
    none). A copy of the leader, or the leader with only its numbers changed, joins the group without counting:
    equal lines are `max_line_repeats`' to bound, and an enumeration of one sentence is no loop. So a group's lines
    all hold the leader's numbers, and the lines are first split by their numbers (in C, by a dict): most lines that
    a formula's band brings together hold other numbers, and a split of `limit` lines or fewer, or of fewer than
    `_MIN_VARIANTS` different ones, cannot hold a group that counts. In a split that can, the lines form at most
    `_MAX_GROUPS` groups, each led by its first line: a line alike to no leader starts a group while there is room,
    and else takes the place of the group that took a line longest ago (so groups opened and left, by lines that
    lead nothing or by decoys, cannot keep a loop's copies out). A stock phrase in two or three wordings (`Let me
    check this again.`, `Let me check that again.`) is a group of few different lines, however often it is said; a
    counter's copies are many. `numbers` holds the numbers of the lines seen so far, and is filled in.
    """
    splits: dict[tuple[str, ...], list[str]] = {}
    for line in lines:
        held = numbers.get(line)
        if held is None:
            held = numbers[line] = tuple(_NUMBER.findall(line))
        splits.setdefault(held, []).append(line)
    best = 0
    for split in splits.values():
        if len(split) > limit and len(set(split)) >= _MIN_VARIANTS:
            best = max(best, _largest_alike_group(split))
    return best


def _largest_alike_group(lines: list[str]) -> int:
    """`_alike_groups` for lines that all hold the same numbers."""
    leaders: list[str] = []
    sizes: list[int] = []
    variants: list[set[str]] = []
    joined: list[int] = []  # when each group last took a line
    best = 0
    for i, line in enumerate(lines):
        for g, leader in enumerate(leaders):
            if line == leader:
                joined[g] = i
                break
            if _reworded(leader, line):
                sizes[g] += 1
                joined[g] = i
                variants[g].add(line)
                if len(variants[g]) >= _MIN_VARIANTS:
                    best = max(best, sizes[g])
                break
        else:
            if len(leaders) < _MAX_GROUPS:
                leaders.append(line)
                sizes.append(1)
                variants.append({line})
                joined.append(i)
            else:
                # The group that took a line longest ago gives its place: a loop keeps its own group in use, so
                # groups a decoy opened and left cannot keep its copies out.
                g = joined.index(min(joined))
                leaders[g], sizes[g], variants[g], joined[g] = line, 1, {line}, i
    return best


def _short_loop(
    key_lines: list[bytes],
    counts: Counter[bytes],
    top: int,
    config: FormatConfig,
    text_lines: Callable[[], list[str]],
    edges: Callable[[], Sequence[int]] = tuple,
) -> int:
    """Copies in a row of the most looped passage of non-blank lines of any length, when over the bound (else 0).

    Real reasoning never writes a line more than three times in a row, whatever its length, but the loops of long
    lines are all `max_consecutive_repeats` sees. A loop of `c` copies repeats each of its lines `c` times, so only
    stretches of lines seen more than the bound go on; each is checked by keys, then, when over the bound, on the
    lines themselves (spaces deleted, digits kept: `n = 3`, `n = 4` is an enumeration). `key_lines` are every
    line's key, `counts` how often each non-blank one occurs, and `top` the largest of those counts.
    """
    limit = config.max_short_consecutive_repeats
    if limit is None:
        return 0
    if top <= limit:
        return 0
    filled = list(filter(None, key_lines))
    # A line without a letter is a matrix's or a table's row (`[1, 1, 1, 1]`), which may be written again and again.
    hot = {key for key in compress(counts, map(limit.__lt__, counts.values())) if _HAS_LETTER(key)}
    flags = bytes(map(hot.__contains__, filled))
    # Copies that differ by a counter may be an enumeration's cases that share a verdict (`- n = 3: n is odd, so
    # ...`): they are a loop past the template bound, as alike lines in a row are (and none without one).
    counted = config.max_template_repeats
    best = _counted_loop(filled, key_lines, hot, max(limit, counted), text_lines, edges) if counted is not None else 0
    if counted is not None and any(
        not _HAS_LETTER(key) for key in compress(counts, map(limit.__lt__, counts.values()))
    ):
        # Bare lines in a row, past the template bound: a diagram's rows (`* * *`, `. . . .`) are bare lines too.
        run = _bare_run(text_lines(), set(edges()))
        best = max(best, run if run > max(limit, counted) else 0)
    at: list[int] = []
    for stretch in re.finditer(rb"\x01{%d,}" % (limit + 1), flags):
        start, end = stretch.span()
        copies = _longest_loop(filled[start:end], Counter(filled[start:end]))[0]
        if copies <= limit:
            continue
        if not at:
            at = list(compress(range(len(key_lines)), key_lines))
        prose = text_lines()
        # Confirmed on the lines, digits kept, between the tactic blocks: lines on either side of one are not in a
        # row (`Let's try another hint:`, a block, `This fails.`, twelve times, is twelve hints tried).
        for first, last in _segments(at, start, end, edges()):
            exact = ["".join(prose[i].lower().split()) for i in at[first:last]]
            best = max(best, _longest_loop(exact, Counter(exact))[0])
    return best if best > limit else 0


def _bare_run(prose: list[str], edges: set[int]) -> int:
    """The most bare lines in a row (`...`, `---`, `$$ $$`, `1.`, in any mix), blank lines aside.

    A bare line has one letter or digit at most (any marks or symbols besides, a display's `$$` too; `_bare_lines`
    counts a narrower kind, anywhere). A row of such lines pads a thinking with nothing; a matrix's rows hold digits
    (`[1, 1, 1, 1]` ten times is an all-ones matrix) and a table's, words. Lines on either side of a block (`edges`)
    are not in a row.
    """
    best = run = 0
    for i, line in enumerate(prose):
        line = line.strip()
        if not line:
            continue
        if _TWO_ALNUM(line):
            run = 0
        else:
            run = run + 1 if run and i not in edges else 1
            best = max(best, run)
    return best


# Two letters or digits in a line (found at the second): no bare line.
_TWO_ALNUM = re.compile(r"[^\W_].*?[^\W_]").search


def _counted_loop(
    filled: list[bytes],
    key_lines: list[bytes],
    hot: set[bytes],
    limit: int,
    text_lines: Callable[[], list[str]],
    edges: Callable[[], Sequence[int]],
) -> int:
    """Copies in a row of a passage written again with a counter, when over `limit` (0 otherwise).

    `_short_loop` confirms its loops digit for digit, so `Pass 3.` before each copy, `(3)` on each line or `Pass
    three.` hides them. A line of `_COUNTED_LINE_BYTES` key bytes or more seen more than `limit` times at one
    distance (up to `_MAX_LOOP_LINES` lines, no block between) marks a loop: the lines at each place of the copies
    that are alike by keys must hold two thirds of a copy's key bytes, and their digits may differ from copy to copy
    by a counter only (`_one_counter`). The cases of an enumeration (`- n = 3: 3^3 + 1
    = 28`, then `This is not divisible by 7.`) each hold a value besides their number; cases that share a verdict
    are why `limit` is the template bound. A copy is two lines or more, and one of its alike lines is a sentence
    (`_COUNTED_SENTENCE_BYTES`): one line with a counter is an enumeration's case as often as a loop (`- $x = 3$: not
    a solution, since the left side is odd.` twelve times, `- x_3 is positive because ...`), an outline repeats its
    short headings (`- Step 3: bound the term`) and a goal state its context after each step.
    `filled` are the non-blank lines' keys, `hot` those seen often enough to mark a short loop (a superset of those
    that can mark this one).
    """
    places: dict[bytes, list[int]] = {}
    for n, key in enumerate(filled):
        if key in hot and len(key) >= _COUNTED_LINE_BYTES:
            places.setdefault(key, []).append(n)
    best = 0
    at: list[int] = []
    # The stretches already judged, by distance: every line of a loop marks it, and it is judged once.
    judged: list[tuple[int, int, int]] = []
    for seen in places.values():
        i = 0
        while i + limit < len(seen):
            gap = seen[i + 1] - seen[i]
            j = i + 1
            while j + 1 < len(seen) and seen[j + 1] - seen[j] == gap:
                j += 1
            if (
                j - i + 1 > max(limit, best)
                and gap <= _MAX_LOOP_LINES
                and not any(size == gap and first <= seen[i] < end for size, first, end in judged)
            ):
                judged.append((gap, seen[i], seen[j] + gap))
                at = at or list(compress(range(len(key_lines)), key_lines))
                # Cut where a block falls between two lines: lines on either side of one are not in a row. A copy
                # runs from its marker line to the line before the next (the last one, as far as the stretch goes).
                end = min(seen[j] + gap, len(filled))
                for first, last in _segments(at, seen[i], end, edges()):
                    start = first + (seen[i] - first) % gap  # the first marker line of the stretch
                    copies = len(range(start, min(last, seen[j] + 1), gap))
                    windows = len(range(start, last - gap + 1, gap))  # the copies that end before the stretch does
                    if copies > max(limit, best) and _alike_but_a_counter(
                        filled, at, (start, gap, windows), text_lines
                    ):
                        best = copies
            i = j
    return best if best > limit else 0


def _counted_lines(
    key_lines: list[bytes], counts: Counter[bytes], top: int, config: FormatConfig, text_lines: Callable[[], list[str]]
) -> int:
    """Lines in runs of one sentence written again and again with a counter, all together, when over the bound.

    A run is more than `max_short_consecutive_repeats` non-blank lines in a row, alike by their keys (a sentence:
    `_COUNTED_SENTENCE_BYTES` or more), that differ in one number wherever it stands (`_counter_only`):
    `... (i=3).` or `..., pass 3.` on each of ten sentences 19 times kept the full score on 179 of 188 rows, as no
    run is over the template bound and the counter labels no line (`_labels`). Real completions have no such run (4
    lines in a row at most); an enumeration's cases that share a verdict, a dozen or so, are one, and a thinking
    may check six properties for n = 1 to 7 (42 lines, the twenty-third red team). `key_lines` are every line's
    key, `counts` how often each non-blank one occurs, and `top` the largest of those counts.
    """
    most, limit = config.max_counted_lines, config.max_short_consecutive_repeats
    if most is None or limit is None or top <= limit:
        return 0
    hot = {key for key, n in counts.items() if n > limit and len(key) >= _COUNTED_SENTENCE_BYTES}
    if not hot:
        return 0
    filled = [(n, key) for n, key in enumerate(key_lines) if key]
    total = i = 0
    while i < len(filled):
        key, j = filled[i][1], i + 1
        if key in hot:
            while j < len(filled) and filled[j][1] == key:
                j += 1
            if j - i > limit and _counter_only([text_lines()[n] for n, _ in filled[i:j]]):
                total += j - i
        i = j
    return total if total > most else 0


def _counter_only(lines: list[str]) -> bool:
    """Whether `lines` (alike by their keys) differ, spaces and case aside, in one number: each line one value.

    Numbers that step apart are a table's or a computation's (`Day 3: starts at 2 m, climbs to 5 m`, `the term
    1/(3*4) equals 1/3 - 1/4`), not a counter.
    """
    changed = _changing_numbers([_NUMBER.findall("".join(line.lower().split())) for line in lines])
    if not changed:  # no copies that differ by a counter, or copies that do not differ
        return False
    return all(len(set(values)) == 1 for values in zip(*changed, strict=True))


def _changing_numbers(numbers: list[list[str]]) -> list[tuple[str, ...]] | None:
    """Each place's numbers over the lines (`numbers` holds each line's), for the places where they change.

    None when the lines hold different counts of numbers: they are then no copies that differ by a counter.
    """
    if any(len(held) != len(numbers[0]) for held in numbers):
        return None
    return [slot for slot in zip(*numbers, strict=True) if slot.count(slot[0]) != len(numbers)]


def _alike_but_a_counter(
    filled: list[bytes], at: list[int], where: tuple[int, int, int], text_lines: Callable[[], list[str]]
) -> bool:
    """Whether passages of lines from `filled` are a loop, for `_counted_loop`.

    `where` is `(start, gap, copies)`: `copies` passages of `gap` lines from `filled[start]` on. `at` is where each
    of `filled` is among the prose's lines.
    """
    start, gap, copies = where
    if copies < 2:
        return False
    places = [filled[start + k : start + k + copies * gap : gap] for k in range(gap)]
    if any(column.count(column[0]) == copies - 1 == column.index(column[-1]) for column in places):
        # The last copy ran past the loop into the text after it (its marker line is a case's last line).
        copies -= 1
        places = [column[:copies] for column in places]
    alike = [k for k, column in enumerate(places) if column.count(column[0]) == copies]
    kept = sum(len(places[k][0]) for k in alike)
    if not alike or max(len(places[k][0]) for k in alike) < (
        _COUNTED_COPY_BYTES if gap == 1 else _COUNTED_SENTENCE_BYTES
    ):
        return False
    if 3 * kept < 2 * sum(len(column[0]) for column in places):
        return False
    prose = text_lines()
    changed: list[tuple[str, ...]] = []  # each number that changes from copy to copy, over the copies
    for k in alike:
        lines = ["".join(prose[at[start + k + n * gap]].lower().split()) for n in range(copies)]
        if lines.count(lines[0]) == copies:
            continue
        slots = _changing_numbers([_NUMBER.findall(line) for line in lines])
        if slots is None or (gap == 1 and not _labels([prose[at[start + n]].lower() for n in range(copies)])):
            return False
        changed += slots
    return _one_counter(changed)


def _labels(lines: list[str]) -> bool:
    """Whether the numbers that change from one of `lines` to the next each label its line, as a loop's counter.

    A counter labels a copy at the head of its line (after list marks, maybe a word: `3.`, `Attempt 3:`, `- (3)`,
    `Step #3`) or at its end in brackets (`(check 3)`, `[3 of 12]`). A case's value stands in a formula or a
    sentence (`- If x ≡ 3 (mod 13), then ...`, `For n = 3, ...`, `... ending the day at 3 meters.`): twelve cases may
    share a long verdict. The lines are read with their spaces (`log_2 80` holds two numbers).
    """
    found = [list(_NUMBER.finditer(line)) for line in lines]
    if any(len(numbers) != len(found[0]) for numbers in found):
        return False
    line = lines[0]
    for n, first in enumerate(found[0]):
        if all(numbers[n].group() == first.group() for numbers in found):
            continue
        a, b = first.span()
        if _HEAD_LABEL.fullmatch(line, 0, a) is None and (
            _TAIL_OPEN.search(line, 0, a) is None or _TAIL_CLOSE.fullmatch(line, b) is None
        ):
            return False
    return True


# Where `_labels` takes a number for a label: all that comes before it on its line, or (at its end) what opens its
# bracket and all that comes after it. A word is two letters or more and a space (`h3` is a hypothesis).
_HEAD_LABEL = re.compile(r"[-*+>#\s]*(?:[a-z]{2,}\s+)?[(\[#]?\s*")
_TAIL_OPEN = re.compile(r"[(\[#]\s*(?:[a-z]{2,}\s+)?\Z")
_TAIL_CLOSE = re.compile(r"(?:\s*(?:of|/)\s*[0-9]+)?\s*[)\]]?[.!?:;]*\s*")


def _one_counter(changed: list[tuple[str, ...]]) -> bool:
    """Whether the numbers that change from copy to copy (each over the copies) are one counter.

    They are when each copy holds one value in all of them (`Pass 3.`, `(3)` on each line), or when each steps by one
    and the same amount (a list numbered across the copies: `1.` to `3.`, then `4.` to `6.`). A case's value (`3^3 +
    1 = 28`) steps otherwise than its number.
    """
    if all(len(set(copy)) == 1 for copy in zip(*changed, strict=True)):
        return True
    steps: set[int] = set()
    for values in changed:
        if not all(map(str.isdecimal, values)):
            return False
        numbers = list(map(int, values))
        steps.update(b - a for a, b in pairwise(numbers))
        if len(steps) > 1:
            return False
    return 0 not in steps


# A counted loop's marker line, in key bytes (a template unit: shorter lines are formulas and labels), and its
# sentence: five words or so (`So the bound holds.` is 16; an outline's heading, `- Step 3: bound the term`, 18).
_COUNTED_LINE_BYTES = 16
_COUNTED_SENTENCE_BYTES = 24
# A copy of one line: a long sentence. A year's months, a clock's hours or a game's rounds listed with one shared
# sentence each are a dozen short ones (`Month 3: she deposits the same $100 into the account.`, 40 key bytes).
_COUNTED_COPY_BYTES = 60


def _medium_repeats(
    units: list[bytes], key_lines: list[bytes], medium: int, config: FormatConfig, edges: Callable[[], Sequence[int]]
) -> int:
    """Occurrences of the most repeated unit shorter than `repetition_min_chars` key bytes, lead-ins aside.

    Measured only when the `medium` such units could break `max_medium_line_repeats` (0 otherwise). A line that
    leads into a tactic block (the last non-blank line before one of the `edges`) counts once less for each block
    it leads into: a completion of 80 blocks may say `In Lean 4, we can write:` before each.
    """
    most = config.max_medium_line_repeats
    if most is None or medium <= most:
        return 0
    counts = Counter(compress(units, map(config.repetition_min_chars.__gt__, map(len, units))))
    if max(counts.values(), default=0) <= most:
        return 0
    _take_lead_ins(counts, key_lines, edges())
    return max(counts.values(), default=0)


def _take_lead_ins(counts: Counter[bytes], key_lines: list[bytes], edges: Sequence[int], depth: int = 1) -> None:
    """Count each line of `counts` once less for each tactic block it leads into.

    A line leads into a block when it is one of the last `depth` non-blank lines before one of the `edges`. A
    completion of 80 blocks may say `In Lean 4, we can write:` before each (`Let me write it.` then `In Lean 4, we
    can write:`, with a `depth` of 2).
    """
    for edge in edges:
        before = edge
        for _ in range(depth):
            before -= 1
            while before >= 0 and not key_lines[before]:
                before -= 1
            if before < 0:
                break
            if key_lines[before] in counts:
                counts[key_lines[before]] -= 1


def _repeated_remarks(
    data: bytes, keys: bytes, counts: Counter[bytes], config: FormatConfig, edges: Callable[[], Sequence[int]]
) -> int:
    """Occurrences of the remarks written `_REMARK_REPEATS` times or more, all together, lead-ins aside.

    Measured when more than `max_repeated_remarks` (0 otherwise). A remark is a prose line under
    `repetition_min_chars` key bytes of words alone (`_REMARK`: `Wait.`, `Hmm, okay.`, `*Let me check.*`), no
    formula, value or lead-in ending in a colon; or a short sentence of words alone that opens a line or closes one
    as a sentence of its own (`_inline_remarks`: `Hmm, wait.` before every line). `counts` holds every non-blank
    key's count and `keys` the keys' lines: the few line keys that occur often enough are selected in C, the
    sentences found by two regex scans, and only when they break the bound are they confirmed on `data` (the prose
    in UTF-8), digits kept, and the lead-ins taken out.
    """
    limit = config.max_repeated_remarks
    if limit is None:
        return 0
    least = config.repetition_min_chars
    remarks = Counter(
        {
            key: counts[key]
            for key in compress(counts, map(_REMARK_REPEATS.__le__, counts.values()))
            if len(key) < least and _REMARK.fullmatch(key)
        }
    )
    inline = _inline_remarks(keys)
    if remarks.total() + inline <= limit:
        return 0
    # Confirmed with their digits: a value's verdict (`27 is not a square.`) is an enumeration's, not a remark.
    exact = data.translate(_KEY_TABLE, b" \t")
    lines = exact.split(b"\n")
    remarks = Counter(compress(lines, map(remarks.__contains__, lines)))
    _take_lead_ins(remarks, lines, edges(), _REMARK_LEAD_INS)
    found = sum([n for n in remarks.values() if n >= _REMARK_REPEATS]) + (_spaced_remarks(data) if inline else 0)
    return found if found > limit else 0


def _opener_share(keys: bytes, data: bytes, lines: int, limit: float | None) -> float:
    """The share of the `lines` (non-blank) that the most common opener opens or closer closes, when over `limit`.

    An opener is a word before a comma, a semicolon, a dash or an ellipsis (`Wait, `, `Hmm… `), or two words (`Okay
    so `), after a bullet or a number too (`_OPENER`); a closer, a question after a comma, a dash or a parenthesis
    (`_QUESTION_CLOSER`: `, right?`). `keys` is the prose's lines of keys, `data` the prose in UTF-8. A verbal tic at
    the head or the end of every line or two makes no line a remark; real reasoning opens at most 12% of its lines
    with one such word (`Wait,` 85 times in 853), at most 9% with two (`From property`, 23 in 258), and closes none
    with one question. Measured (else 0) when one takes `_OPENER_FLOOR` lines and more than `limit` of them: only
    then are the lines that go on alike, a value among what follows, taken as one (an enumeration's cases). The
    openers are read on the text only where their gates (`_OPENER_GATES`, on the keys) find enough lines.
    """
    if limit is None:
        return 0.0
    most = max(Counter(_QUESTION_CLOSER.findall(b"\n" + keys[::-1] + b"\n")).values(), default=0)
    text = b""
    for gate, opener, going_on in zip(_OPENER_GATES, _OPENER, _OPENER_GOING_ON, strict=True):
        top = max(Counter(gate.findall(b"\n" + keys)).values(), default=0)
        if top < _OPENER_FLOOR or top <= limit * lines:
            continue
        text = text or b"\n" + data.translate(_KEY_TABLE) + b"\n"
        counts = Counter(opener.findall(text))
        top = max(counts.values(), default=0)
        if top < _OPENER_FLOOR or top <= limit * lines:
            continue
        # Confirmed: the cases of an enumeration (what follows the opener alike but for its digits, a value among the
        # first twelve characters) count once, three at least.
        found = going_on.findall(text)
        cases = Counter((word, rest.translate(None, _KEY_DELETE)) for word, rest in found if _HAS_DIGIT(rest, 0, 12))
        for (word, _), n in cases.items():
            if n > 2:
                counts[word] -= n - 1
        most = max(most, max(counts.values()))
    return most / lines if most >= _OPENER_FLOOR and most > limit * lines else 0.0


_HAS_DIGIT = re.compile(rb"\d").search
_HAS_LETTER = re.compile(rb"[a-z]").search


def _inline_remarks(keys: bytes) -> int:
    """Occurrences of the short sentences written `_REMARK_REPEATS` times or more that open or close a line, by keys.

    `keys` is lines of keys (case folded, spaces deleted). A sentence opens a line when more follows it on the line,
    and closes one when it follows no word. The closing ones are found on the reversed keys, so that both scans
    start at a newline, which `re` finds fast. A gate: `_spaced_remarks` confirms on the text.
    """
    found = Counter(_OPENING_REMARK.findall(b"\n" + keys))
    found.update(_CLOSING_REMARK.findall(b"\n" + keys[::-1]))
    return sum([n for n in found.values() if n >= _REMARK_REPEATS])


def _spaced_remarks(data: bytes) -> int:
    """`_inline_remarks` confirmed on `data` (the prose in UTF-8), spaces, digits and case kept.

    An opening sentence must end before a space, and a closing one start with a capital letter after a space, with
    no word before it (both counted by their keys, of 24 bytes at most).
    """
    found = Counter(_OPENING_SPACED.findall(b"\n" + data.translate(_KEY_TABLE)))
    found.update(key[::-1] for key in _CLOSING_SPACED.findall(b"\n" + data[::-1]))
    keys: Counter[bytes] = Counter()
    for sentence, n in found.items():
        key = sentence.translate(_KEY_TABLE, b" \t")
        if len(key) <= _INLINE_REMARK_BYTES:
            keys[key] += n
    return sum([n for n in keys.values() if n >= _REMARK_REPEATS])


def _segments(where: Sequence[int], start: int, end: int, edges: Sequence[int]) -> list[tuple[int, int]]:
    """`range(start, end)` cut where a block edge falls between two of the lines at `where[start:end]`."""
    cuts = [start]
    at = bisect_right(edges, where[start])
    for i in range(start + 1, end):
        after = bisect_right(edges, where[i])
        if after != at:
            cuts.append(i)
            at = after
    cuts.append(end)
    return list(zip(cuts, cuts[1:], strict=False))


def _centred(band: int, longest: int) -> list[slice]:
    """The slice of the middle `band` bytes of a line, for each line length up to `longest` (kept and grown)."""
    table = _CENTRED.setdefault(band, [])
    table.extend(slice((size - band) // 2, (size + band) // 2) for size in range(len(table), longest + 1))
    return table


_CENTRED: dict[int, list[slice]] = {}
# `operator.getitem`, typed for bytes and a slice (mypy cannot pick one of its overloads for `map`).
_slice_bytes = cast(Callable[[bytes, slice], bytes], getitem)


def _similar_loop(lines: list[str], bands: tuple[list[bytes], ...]) -> int:
    """Most copies in a row of a passage of `lines` whose copies are alike (`_alike`), a word changed in one at least.

    `_longest_loop` with likeness for equality: a line continues a run when it is like the line one period back, and
    otherwise starts a candidate period at the nearest earlier line that is the line before or shares one of its
    `bands` (an opening, an ending, a middle), if it is like that one. A run counts only once a word changed in it:
    equal copies are the other loop rules' to bound (`max_short_line_repeats`, `max_consecutive_repeats`), and
    copies whose numbers change are an enumeration (`max_line_repeats`); both may still be lines of a passage that
    loops with a counter.
    """
    best = 1
    last: list[dict[bytes, int]] = [{} for _ in bands]
    period = run = 0
    varied = False  # whether a word changed between two copies of the run
    for i, line in enumerate(lines):
        likeness = _alike(lines[i - period], line) if period else _UNLIKE
        if likeness:
            run += 1
            varied = varied or likeness == _WORD_CHANGED
        else:
            period = run = 0
            varied = False
            # The line before and the earlier lines that share a band, nearest first: the shortest period that holds
            # is the loop's (copies that each add a word may share no band with the copy before, only with others).
            found = {i - 1, *(seen.get(kind[i], -1) for seen, kind in zip(last, bands, strict=True))}
            for previous in sorted(found, reverse=True):
                if previous < 0 or i - previous > _MAX_LOOP_LINES:
                    break
                likeness = _alike(lines[previous], line)
                if likeness:
                    period, run, varied = i - previous, 1, likeness == _WORD_CHANGED
                    break
        for seen, kind in zip(last, bands, strict=True):
            seen[kind[i]] = i
        if varied and period and run >= period:
            best = max(best, run // period + 1)
    return best


# How alike two lines are (`_alike`): not, alike with equal words (equal, or only numbers changed), a word changed.
_UNLIKE, _SAME_WORDS, _WORD_CHANGED = 0, 1, 2


def _alike(a: str, b: str) -> int:
    """Whether `b` is `a` with a word or two changed, in one place, at both ends or moved, and whether only words changed.

    One place: their common opening and ending cover three quarters of the longer line, or leave at most
    `_WORD_CHARS` characters between them (a word, on a short line). Both ends: the lines are within a third of each
    other's length and the middle half of `a` is in `b` verbatim. Moved: a word added in one place and one dropped
    in another (`_moved_word`): copies of an unseen original that each add or drop a word, in a place of their own,
    differ from one another so, and the copy before is no closer than any other.

    Returns:
        `_WORD_CHANGED`; `_SAME_WORDS` when the lines are equal or a number changed in one place (an enumeration: `x
        = 3 is a solution`, `x = 4 is not a solution`; `h₀`, `h₁`), whatever words changed with it; or `_UNLIKE`.
        Words replaced in two places are `_UNLIKE`: a table's rows differ so (`The variable a appears only in the
        first factor`, then `b` and `second`).
    """
    if a == b:
        return _SAME_WORDS
    longer, shorter = max(len(a), len(b)), min(len(a), len(b))
    word = max(_WORD_CHARS, longer // 8)
    if longer - shorter > 2 * word:
        return _UNLIKE  # neither way can hold: cheap, and most pairs of unrelated lines end here
    head = _common_opening(a, b, shorter)
    tail = _common_ending(a, b, shorter - head)
    if _one_place(a, b, head, tail):
        # Numbers that change are what an enumeration changes, and a reasoning that checks values one by one says
        # what each gives in words; copies whose numbers change have equal keys, bounded by `max_line_repeats`.
        return _SAME_WORDS if _NUMBER.findall(a) != _NUMBER.findall(b) else _WORD_CHANGED
    # A moved word changes no number in place, as an enumeration does: its numbers come and go with it (`x_1`).
    return _WORD_CHANGED if _moved_word(a, b, head, tail) else _UNLIKE


def _reworded(a: str, b: str) -> bool:
    """Whether the different lines `a` and `b` differ in one place or at both ends only (`_alike`, numbers aside)."""
    shorter = min(len(a), len(b))
    head = _common_opening(a, b, shorter)
    return _one_place(a, b, head, _common_ending(a, b, shorter - head))


def _one_place(a: str, b: str, head: int, tail: int) -> bool:
    """`_reworded`, given the lengths of the common opening and ending of `a` and `b`."""
    longer, shorter = max(len(a), len(b)), min(len(a), len(b))
    if longer - shorter > max(_WORD_CHARS, longer // 4):
        return False
    if 4 * (head + tail) < 3 * longer and longer - head - tail > _WORD_CHARS:
        quarter = len(a) // 4
        return 3 * longer <= 4 * shorter and a[quarter : len(a) - quarter] in b
    return True


def _moved_word(a: str, b: str, head: int, tail: int) -> bool:
    """Whether `b` is `a` with a word added in one place and a word dropped in another (or two added, or dropped).

    Between their common opening (`head` characters) and ending (`tail`), each line is a change, a common stretch
    and another change, each change at most `_WORD_CHARS` characters (or an eighth of the longer line: a formula is
    a long word) and empty in one of the lines; the common parts cover two thirds of the longer line. The line whose
    first change is empty starts what it has left with the common stretch, so the stretch is looked for in the
    other only near its start.
    """
    longer = max(len(a), len(b))
    word = max(_WORD_CHARS, longer // 8)
    rest_a, rest_b = a[head : len(a) - tail], b[head : len(b) - tail]
    # The common stretch holds at least what the two thirds need beyond the opening and ending.
    size = max(_CORE_CHARS, -(-2 * longer // 3) - head - tail)
    return _starts_common(rest_a, rest_b, size, word) or _starts_common(rest_b, rest_a, size, word)


def _starts_common(first: str, other: str, size: int, word: int) -> bool:
    """Whether `first` is a common stretch then a change, and `other` a change, the stretch and a change.

    The stretch has at least `size` characters, each change at most `word`, and one of the last two is empty (see
    `_moved_word`).
    """
    core = first[:size]
    if len(core) < size:
        return False
    at = other.find(core, 1, word + size + 1)
    while at != -1:
        end = at + size
        right = _common_opening(first[size:], other[end:], min(len(first) - size, len(other) - end))
        after = (len(first) - size - right, len(other) - end - right)
        if 0 in after and max(*after, at) <= word:
            return True
        at = other.find(core, at + 1, word + size + 1)
    return False


def _common_opening(a: AnyStr, b: AnyStr, most: int) -> int:
    """Length of the common opening of `a` and `b`, at most `most`: slice comparisons, in C.

    Lines compared here mostly share little (a band brought them together), so the search first doubles a short
    opening, then bisects the last step.
    """
    if a[:most] == b[:most]:
        return most
    low, high = 0, min(_FIRST_PROBE, most)  # a[:low] is common; a[:high] may not be
    while high < most and a[:high] == b[:high]:
        low, high = high, min(2 * high, most)
    high -= 1  # the opening is shorter than the last probe that failed (or than `most`)
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _common_ending(a: AnyStr, b: AnyStr, most: int) -> int:
    """Length of the common ending of `a` and `b`, at most `most` (`_common_opening` from the ends)."""
    if not most:
        return 0
    if a[-most:] == b[-most:]:
        return most
    low, high = 0, min(_FIRST_PROBE, most)
    while high < most and a[-high:] == b[-high:]:
        low, high = high, min(2 * high, most)
    high -= 1
    while low < high:
        mid = (low + high + 1) // 2
        if a[-mid:] == b[-mid:]:
            low = mid
        else:
            high = mid - 1
    return low


def _paragraph_repeats(keys: bytes, min_chars: int) -> int:
    """Occurrences of the most repeated paragraph of at least `min_chars` key bytes (blank lines separate them).

    A paragraph of many short lines, looped, repeats no long line: counted by paragraphs, it is one key repeated.
    Only the distinct paragraphs that repeat are looked at in Python (a few hundred at most).
    """
    counts = Counter(keys.strip(b"\n").split(b"\n\n"))  # stripped: the first paragraph is like the others
    return max((n for paragraph, n in counts.items() if n > 1 and len(paragraph) >= min_chars), default=1)


def _reworded_copies(
    long: list[bytes],
    counts: Counter[bytes],
    key_lines: list[bytes],
    config: FormatConfig,
    text_lines: Callable[[], list[str]],
) -> int:
    """Lines in a group of long lines that are one line reworded a little, at places that vary.

    A passage written again and again, a word or two changed in each copy, leaves such groups. Its copies keep most
    of the line, so most keep its opening and its ending bands, or, when both ends were reworded, its anchored band
    (`_ANCHORED_BAND`, cut where the content says, so it moves with the text). The gate (in C) counts the different
    long keys by their opening and ending bands together, and by their anchored bands: only near-copies share those.
    Where `_SEED_COPIES` different keys share one (the `_MAX_SEEDS` most shared), the long lines that share it
    (either band of a pair) are confirmed on their words (case folded): each joins the first of
    at most `_MAX_GROUPS` leaders it is within `_word_changes` of, and the places where it differs from the leader are
    kept. A group counts when its changes fall in at least `_MIN_CHANGED_PLACES` places, and in more than twice as
    many as one line changes: a table's rows (`The variable a appears only in the first factor`, then `b` and
    `second`), or a template's, change the same columns, copies reworded at random do not; and a formula changed into
    another (values checked one by one) is no place. The first group over the bound ends the search.
    """
    limit = config.max_reworded_lines
    if limit is None or len(long) <= limit:
        return 0
    band = config.template_band_chars
    head, tail = itemgetter(slice(None, band)), itemgetter(slice(-band, None))
    pairs = Counter(map(add, map(head, counts), map(tail, counts)))  # over the different keys (`counts` of `long`)
    # Each different key's anchored band (b"" for a key too short to have one), one regex match a key: copies whose
    # two ends were both reworded (`So, ... again.`) share no end band but keep it.
    anchored = dict(zip(counts, _ANCHOR_OF_EACH.findall(b"\n" + b"\n".join(counts)), strict=True))
    anchors = Counter(anchored.values())
    anchors.pop(b"", None)
    # The most shared seeds last (a stable sort: the text's order among equals), each with the long lines that share
    # it (a pair's opening or ending): a seed's own lines, so other near-copies do not crowd its copies out of the
    # groups. A pair with a LaTeX command in both its ends, or an anchored band with two, is a formula's: a
    # derivation restated, whose lines have too few words to lead a group anyway.
    seeds = [(n, 0, pair) for pair, n in pairs.items() if n >= _SEED_COPIES and not _formula_pair(pair, band)]
    seeds += [(n, 1, anchor) for anchor, n in anchors.items() if n >= _SEED_COPIES and anchor.count(b"\\") < 2]
    if not seeds:
        return 0
    seeds.sort(key=itemgetter(0, 1))
    heads, tails = list(map(head, long)), list(map(tail, long))
    where: list[int] = []  # each long line's index in the text, found once a seed has enough members
    lines: list[str] = []
    words: dict[int, list[str]] = {}
    for _, kind, seed in seeds[-_MAX_SEEDS:]:
        if kind:
            shares = map(seed.__eq__, map(anchored.__getitem__, long))
        else:
            shares = map(or_, map(seed[:band].__eq__, heads), map(seed[band:].__eq__, tails))
        members = list(compress(range(len(long)), shares))[:_MAX_MEMBERS]
        if len(members) <= limit:
            continue
        if not where:
            least = config.repetition_min_chars
            where.extend(compress(range(len(key_lines)), map(least.__le__, map(len, key_lines))))
            lines.extend(text_lines())
        for i in members:
            if i not in words:
                words[i] = lines[where[i]].lower().split()
        found = _reworded_group([words[i] for i in members], limit)
        if found > limit:
            return found  # one group over the bound is enough; hostile text stops here
    return 0


def _formula_pair(pair: bytes, band: int) -> bool:
    """Whether both bands of an opening-and-ending pair hold a LaTeX command (the pair of a formula's lines)."""
    return b"\\" in pair[:band] and b"\\" in pair[band:]


def _reworded_group(lines: list[list[str]], limit: int) -> int:
    """`_reworded_copies` for the words of some lines: the size of the largest group that counts.

    The scan stops at the first group of more than `limit` lines that counts, and returns its size.
    """
    leaders: list[list[str]] = []
    sizes: list[int] = []
    places: list[set[int]] = []
    widest: list[int] = []  # the most places one line of each group changed
    ends: list[set[tuple[str, str]]] = []  # the different first and last words of each group's lines
    joined: list[int] = []  # when each group last took a line
    best = 0
    for i, words in enumerate(lines):
        for g, leader in enumerate(leaders):
            if words == leader:
                sizes[g] += 1
                joined[g] = i
                break
            changed = _word_changes(leader, words)
            if changed is not None:
                sizes[g] += 1
                joined[g] = i
                places[g].update(changed)
                widest[g] = max(widest[g], len(changed))
                ends[g].add((words[0], words[-1]))
                # Counted when the changes spread: over more places than twice the most one line changed (a
                # template's rows change the same columns, each row all of them); or when the two ends change
                # and only they, each copy wrapped anew (`So ... again.`, `Now ... too.`), a table's columns being
                # inside (a counter at the start alone is the template loop's and `max_alike_lines`').
                spread = len(places[g]) >= max(_MIN_CHANGED_PLACES, 2 * widest[g] + 1)
                wrapped = places[g] == {0, len(leader) - 1} and len(ends[g]) >= _MIN_WRAPPINGS
                if spread or wrapped:
                    best = max(best, sizes[g])
                    if best > limit:
                        return best
                break
        else:
            # A line of too few words (a formula) may join a group but leads none: a derivation restated is no loop.
            if len(words) < _MIN_WORDS or len(_WORD_TOKEN.findall(" ".join(words))) < _LEAD_WORDS:
                continue
            lead = words
            if len(leaders) < _MAX_GROUPS:
                leaders.append(lead)
                sizes.append(1)
                places.append(set())
                widest.append(0)
                ends.append({(words[0], words[-1])})
                joined.append(i)
            else:
                g = joined.index(min(joined))
                leaders[g], sizes[g], places[g], widest[g], joined[g] = lead, 1, set(), 0, i
                ends[g] = {(words[0], words[-1])}
    return best


def _word_changes(leader: list[str], words: list[str]) -> list[int] | None:
    """The places (word indices in `leader`) where `words` differs from it, when only a few words changed.

    A quarter of the leader's words (three at least, four at most; a fifth of a line of `_LONG_WORDS` words or more)
    may differ, changed, added, dropped or swapped with a neighbour, in any mix (two copies that each change two words
    of a line of twenty differ in four; a copy that adds three words to the original, in three); None otherwise, or
    when the leader is too short to tell.
    `_reworded_group` only lets lines of `_MIN_WORDS` words, `_LEAD_WORDS` of them plain (without digits or symbols),
    lead: a bare formula restated is a derivation, not a sentence. The places are the changed words when the lines
    have the same length, else the two ends of what differs.
    """
    size = len(leader)
    most = min(_FEW_WORDS, max(3, size // 4)) if size < _LONG_WORDS else size // _LONG_SHARE
    if size < _MIN_WORDS or abs(len(words) - size) > most:
        return None
    if len(words) == size:
        # A formula changed into another (a number into a number: `n = 3: 9 is odd`, or `\sin{x}` into `\cos{x}`) is
        # an enumeration's or a derivation's change: no place, no edit. A word changed is.
        changed = list(compress(range(size), map(ne, leader, words)))
        if len(changed) > most:
            changed = [i for i in changed if not (_FORMULA.search(leader[i]) and _FORMULA.search(words[i]))]
        # Two neighbours swapped are one edit.
        swaps = sum(
            1
            for i, j in zip(changed, changed[1:], strict=False)
            if j == i + 1 and leader[i] == words[j] and leader[j] == words[i]
        )
        if len(changed) - swaps <= most:
            return changed
    shorter = min(size, len(words))
    start = 0
    while start < shorter and leader[start] == words[start]:
        start += 1
    end = 0
    while end < shorter - start and leader[-1 - end] == words[-1 - end]:
        end += 1
    first, second = leader[start : size - end], words[start : len(words) - end]
    # What differs holds a word: the places are its two ends. Formulas only (a derivation restated): alike, at no place.
    places = [start, start + max(len(first), 1) - 1] if _WORD_TOKEN.search(" ".join(first + second)) else []
    # Two edits, one at each end of what differs (two copies that each drop a word, at two places): slices, in C.
    for left_a, left_b in _EDITS:
        for right_a, right_b in _EDITS:
            if first[left_a : len(first) - right_a] == second[left_b : len(second) - right_b]:
                return places
    # Each word of one side missing from the other takes an edit: a cheap bound before aligning word by word.
    # A stretch may hold its `most` edits apart from each other: four words a stretch per edit allowed.
    if (
        len(first) > max(_MAX_ALIGNED, 4 * most)
        or len(set(first).difference(second)) > most
        or _edits(first, second, most) > most
    ):
        return None
    return places


# A token of a formula rather than a word: it holds a digit or a symbol of LaTeX or arithmetic.
_FORMULA = re.compile(r"[0-9$\\^_{}=+*/<>()\[\]|≤≥≠∈·×−-]")
# A word among space-separated tokens: it holds none of the characters of `_FORMULA`.
_WORD_TOKEN = re.compile(r"(?:^| )[^ 0-9$\\^_{}=+*/<>()\[\]|≤≥≠∈·×−-]+(?= |$)")
# The ways one word can differ at one place: changed (each side has it), dropped (only the first), added (only the
# second).
_EDITS = ((1, 1), (1, 0), (0, 1))
# Most words of a differing stretch that `_word_changes` aligns word by word; a longer one is not a few words changed.
_MAX_ALIGNED = 16


def _edits(a: list[str], b: list[str], most: int) -> int:
    """Word edits (changed, added, dropped) that make `a` into `b`, counted up to `most + 1` (a banded Levenshtein)."""
    previous = list(range(len(b) + 1))
    for i, word in enumerate(a, 1):
        current = [i] + [most + 1] * len(b)
        for j in range(max(1, i - most), min(len(b), i + most) + 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (word != b[j - 1]))
        if min(current) > most:
            return most + 1
        previous = current
    return min(previous[-1], most + 1)


def _paragraph_room(counts: Counter[bytes], limit: int) -> int:
    """The most key bytes a paragraph occurring more than `limit` times could hold, from the lines' counts.

    Such a paragraph's copies are apart, so each of its lines occurs more than `limit` times for each time the
    paragraph holds it: a line seen `n` times gives at most `n // (limit + 1)` lines of it, and each line a newline.
    """
    times = limit + 1
    return sum([(len(key) + 1) * (n // times) for key, n in counts.items() if n > limit])


def _over(count: int, bound: int | None) -> bool:
    """Whether `count` long lines could hold a group over `bound` (always measured when there is no bound)."""
    return bound is None or count > bound


def _short_repeats(counts: Counter[bytes], keys: bytes, not_long: int, config: FormatConfig) -> int:
    """Occurrences of the most repeated short non-blank key, when the short lines are more than the bound allows.

    `counts` holds every non-blank key's count. The short keys are only looked at when there are enough of them to
    break the bound (counted first from the line count, which is a C scan).
    """
    most = config.max_short_line_repeats
    # Short non-blank lines are at most the lines that are not long, less one blank line per "\n\n".
    if most is None or not_long < most or not_long - keys.count(b"\n\n") < most:
        return 0
    # The largest count among the short keys, selected in C: `least > len(key)` for each key, in the dict's order.
    return max(compress(counts.values(), map(config.repetition_min_chars.__gt__, map(len, counts))), default=0)


def _bare_lines(data: bytes, counts: Counter[bytes], limit: int | None) -> int:
    """Prose lines of punctuation marks and symbols, with one letter or digit at most, past a bound (0 within it).

    A rule, `...` and `x` are such lines. The bound is `limit`, or a third of the non-blank lines and `_FEW_BARE`
    at least, whichever is less. Lines of any width, each its own key, pad a thinking with nothing that the per-key
    repeat bounds count, whether hundreds in a row or one after each line. The gate is in C: the lines whose key
    (`counts` holds every non-blank key's count) is `_BARE_KEY` bytes or fewer are counted, and only when more than
    the bound is the prose (`data`, UTF-8) matched. Longer bare lines are junk lines (`metrics._JUNK_LINE`).
    """
    if limit is None:
        return 0
    bound = min(limit, max(_FEW_BARE, sum(counts.values()) // 3))
    if sum(compress(counts.values(), map(_BARE_KEY.__ge__, map(len, counts)))) <= bound:
        return 0
    bare = len(_BARE_LINE.findall(b"\n" + data + b"\n"))
    return bare if bare > bound else 0


def _longest(long: list[bytes]) -> int:
    """Bytes in the longest key (0 without long lines: every line is then shorter than `repetition_min_chars`)."""
    return max(map(len, long)) if long else 0


def long_keys(keys: bytes, min_chars: int) -> list[bytes]:
    """The keys of at least `min_chars` bytes among the newline-separated `keys`, in order."""
    # A regex finds the long lines without making an object of every short one. It matches from the newline before
    # a line, so the first line is looked at apart (rather than copying the keys after a "\n").
    first_end = keys.find(b"\n")
    first = keys if first_end == -1 else keys[:first_end]
    found = _long_lines(min_chars).findall(keys)
    return [first, *found] if len(first) >= min_chars else found


@lru_cache
def _long_lines(min_chars: int) -> re.Pattern[bytes]:
    """Matches each line of at least `min_chars` bytes, from the newline before it."""
    return re.compile(rb"\n([^\n]{%d,})" % max(min_chars, 0))


def line_keys(text: str) -> list[bytes]:
    """Near-duplicate keys of each line of `text`, in order."""
    return _without_script_digits(text.encode(errors=UTF8_ERRORS).translate(_KEY_TABLE, _KEY_DELETE)).split(b"\n")


def _without_script_digits(keys: bytes) -> bytes:
    """`keys` without subscript and superscript digits, deleted as ASCII digits are (`_SCRIPT_DIGIT`)."""
    return _SCRIPT_DIGIT.sub(b"", keys) if _SCRIPT_DIGIT.search(keys) is not None else keys


def exact_long_lines(text: str, min_chars: int, keys: list[bytes] | None = None) -> list[str]:
    """The long lines of `text` (by their keys), each case folded with its spaces normalised but its digits kept.

    `keys` are the lines' keys when the caller has them already (`line_keys(text)` otherwise).
    """
    keys = line_keys(text) if keys is None else keys
    return [
        " ".join(line.lower().split())
        for line, key in zip(text.split("\n"), keys, strict=True)
        if len(key) >= min_chars
    ]


def passage_key(text: str) -> bytes:
    """The near-duplicate key of a whole passage: its lines' keys joined, newlines deleted too."""
    return _without_script_digits(text.encode(errors=UTF8_ERRORS).translate(_KEY_TABLE, _PASSAGE_DELETE))


_PASSAGE_DELETE = _KEY_DELETE + b"\r\n"


def longest_loop(lines: Sequence[str] | Sequence[bytes]) -> int:
    """Copies in a row of the most looped passage of `lines` (1 when no passage repeats in a row, 0 without lines)."""
    if not lines:
        return 0
    items = cast("list[bytes]", list(lines))  # str or bytes alike: lines are only compared with each other
    return _longest_loop(items, Counter(items))[0]


def _longest_loop(lines: list[bytes] | list[str], counts: Counter[bytes] | Counter[str]) -> tuple[int, int, int]:
    """The most copies in a row of one passage of `lines`: (copies, lines per copy, index of its first line).

    (1, 0, 0) when no passage repeats in a row. Every line of a loop, its first copy included, occurs more than once,
    so only the stretches of such lines are scanned (found in C, from `counts`); in each, a line equal to the one
    `period` lines back continues a run, and any other line starts a new candidate period: the distance to its
    previous occurrence.
    """
    repeated = bytes(map({line for line, count in counts.items() if count > 1}.__contains__, lines))
    best = (1, 0, 0)
    for stretch in _REPEATED_STRETCH.finditer(repeated):
        start, end = stretch.span()
        last: dict[bytes | str, int] = {}
        period = run = 0
        for i in range(start, end):
            line = lines[i]
            if period and lines[i - period] == line:
                run += 1
            else:
                previous = last.get(line)
                period = i - previous if previous is not None and i - previous <= _MAX_LOOP_LINES else 0
                run = 1 if period else 0
            last[line] = i
            if period and run >= period and run // period + 1 > best[0]:
                best = (run // period + 1, period, i - run - period + 1)
    return best


def _near_duplicates(counts: Counter[bytes], min_chars: int) -> int:
    """Most near-duplicates of one line of at least `min_chars` bytes (itself included), from the long lines' counts.

    A line's near-duplicates share its first or its last `min_chars // 2` bytes: two locality-sensitive bands, so
    any one local edit of a copy (a reworded phrase, an inserted clause) leaves it a near-duplicate of the original,
    and no pair of lines is ever compared. The count for a line is those sharing its opening, plus those sharing its
    ending, minus those sharing both (equal lines included, by their count).
    """
    units = [key for key in counts if len(key) >= min_chars]  # distinct keys
    if len(units) < 2:
        return counts[units[0]] if units else 0
    half = min_chars // 2
    head, tail = itemgetter(slice(None, half)), itemgetter(slice(-half, None))
    if len(set(map(head, units))) == len(set(map(tail, units))) == len(units):
        return max(map(counts.__getitem__, units))  # the usual case: only equal lines share an opening or an ending
    heads, tails = list(map(head, units)), list(map(tail, units))
    head_counts: dict[bytes, int] = {}
    tail_counts: dict[bytes, int] = {}
    both: dict[tuple[bytes, bytes], int] = {}
    for key, head, tail in zip(units, heads, tails, strict=True):
        count = counts[key]
        head_counts[head] = head_counts.get(head, 0) + count
        tail_counts[tail] = tail_counts.get(tail, 0) + count
        both[head, tail] = both.get((head, tail), 0) + count
    return max(head_counts[h] + tail_counts[t] - both[h, t] for h, t in zip(heads, tails, strict=True))


def _reordered_copies(long: list[bytes], min_chars: int, limit: int | None) -> int:
    """Most lines of at least `min_chars` bytes that hold one line's sentences in some order, when over `limit`.

    A paragraph written again with its sentences shuffled shares no opening or ending with the first copy, but its
    key has the same length. The gate is in C: only lines of a length that more than `limit` of the `long` lines
    (every long line's key, in order) have are compared, by their sentences sorted (0 when none is over `limit`).
    """
    if limit is None:
        return 0
    lines = list(compress(long, map(min_chars.__le__, map(len, long))))
    if len(lines) <= limit:
        return 0
    lengths = Counter(map(len, lines))
    if max(lengths.values()) <= limit:
        return 0
    bags = Counter(tuple(sorted(_SENTENCE_END.split(key))) for key in lines if lengths[len(key)] > limit)
    most = max(bags.values())
    return most if most > limit else 0


_SENTENCE_END = re.compile(rb"(?<=[.!?])")


def _shuffled_copies(long: list[bytes], least: int, limit: int | None) -> int:
    """Most long prose lines that hold one sentence of a paragraph shuffled again and again, when over `limit`.

    A paragraph (in Kimina's output nearly always one line) written again and again with its sentences shuffled, a
    word of each changed or not, leaves no line that another copies, so the line rules see no copy. Only lines of
    twice `least` key bytes (paragraphs) are read. A sentence is a stretch of a line's key between sentence ends,
    colons, semicolons or dashes (`_SENTENCE`, `_SENTENCE_BYTES` at least); copies of one are grouped
    (`_sentence_places`). A group in more lines than `limit`, found at two places at least among the line's
    grouped sentences, each place in two lines or more, is a sentence of a shuffled paragraph: all those lines
    count (0 otherwise). A table's rows keep their refrain at its place, and a paragraph looped in one order is the
    line rules' to bound.

    The gate is in C: two regex passes over the paragraphs' keys (the second reversed, for the ending bands) and a
    count of the bands. More than `limit` copies of a paragraph of two sentences, each copy keeping one of each
    sentence's two bands, put two bands in more than half of them; only then are the sentences of the lines that
    hold two such bands grouped.
    """
    if limit is None:
        return 0
    paragraphs = list(compress(long, map((2 * least).__le__, map(len, long))))
    if len(paragraphs) <= limit:
        return 0
    # Dashes join sentences too (`... — ...`): read as semicolons.
    joined = (b"\n" + b"\n".join(paragraphs)).replace(b"\xe2\x80\x94", b";").replace(b"\xe2\x80\x93", b";")
    heads = Counter(_SENTENCE_HEAD.findall(joined))
    tails = Counter(_SENTENCE_HEAD.findall(joined[::-1]))  # the ending bands, reversed
    hot = limit // 2 + 1
    if max(heads.values(), default=0) < hot and max(tails.values(), default=0) < hot:
        return 0
    if sorted([*heads.values(), *tails.values()])[-2] < hot:
        return 0
    marks = [b for b, n in heads.items() if n >= hot] + [b[::-1] for b, n in tails.items() if n >= hot]
    lines = _lines_holding_two(joined, marks)
    if len(lines) <= limit:
        return 0
    most = 0
    for seen in _sentence_places(lines, heads, tails).values():
        if len(seen) > limit:
            common = Counter(seen).most_common(2)
            if len(common) > 1 and common[1][1] > 1:
                most = max(most, len(seen))
    return most if most > limit else 0


def _lines_holding_two(joined: bytes, marks: list[bytes]) -> list[bytes]:
    """The lines of `joined` (lines after a newline each) that hold two different `marks` at least.

    Found by substring searches (in C) and the offsets of the lines' ends.
    """
    lines = joined.split(b"\n")[1:]
    ends = list(accumulate(map(len, lines), lambda at, size: at + size + 1, initial=0))
    held: Counter[int] = Counter()
    for mark in marks:
        holding: set[int] = set()
        at = joined.find(mark)
        while at != -1:
            holding.add(bisect_right(ends, at - 1) - 1)
            at = joined.find(mark, at + 1)
        held.update(holding)
    return [lines[i] for i in sorted(held) if held[i] > 1]


def _sentence_places(lines: list[bytes], heads: Counter[bytes], tails: Counter[bytes]) -> dict[int, list[int]]:
    """Each group of sentence copies: its place among the grouped sentences of each of the `lines` that holds it.

    A sentence joins the group of an earlier one that shares its opening or its ending band (`_SENTENCE_BAND` key
    bytes; `heads` and `tails`, reversed, count them) and a share of its 4-byte shingles (`_alike_sentences`). A
    sentence whose bands are both rare (under `_WARM_BANDS`) has no copies, and one with four LaTeX commands is a
    derivation's step, restated line after line: neither is grouped. Lines with two groups or more count.
    """
    band = _SENTENCE_BAND
    sentences: list[bytes] = []  # the grouped sentences, in order
    shingles: dict[int, set[bytes]] = {}  # each grouped sentence's, by its number, made when first compared
    leaders: dict[bytes, list[int]] = {}  # the group leaders that have each band
    places: dict[int, list[int]] = {}
    for line in lines:
        groups = []
        for key in _SENTENCE.findall(b"\n" + line):
            ends = [
                end
                for end, seen in ((key[:band], heads), (key[-band:][::-1], tails))
                if seen.get(end, 0) >= _WARM_BANDS
            ]
            if not ends or key.count(b"\\") > 3:
                continue
            here = len(sentences)
            sentences.append(key)
            found = [i for end in ends for i in leaders.get(end, ())[:_MAX_GROUPS]]
            group = next((i for i in found if _alike_sentences(here, i, sentences, shingles)), here)
            if group == here:
                for end in ends:
                    leaders.setdefault(end, []).append(here)
            groups.append(group)
        groups = list(dict.fromkeys(groups))  # a group twice in a line (two alike sentences) takes its first place
        if len(groups) > 1:
            for place, group in enumerate(groups):
                places.setdefault(group, []).append(place)
    return places


def _alike_sentences(i: int, j: int, sentences: list[bytes], shingles: dict[int, set[bytes]]) -> bool:
    """Whether sentences `i` and `j` share a share of their 4-byte shingles (Jaccard `_SENTENCE_LIKENESS`).

    `shingles` keeps each sentence's set, made the first time it is compared. Most pairs that share a band are two
    sentences that open or close alike (`Alternatively, ...`), told apart first in C: by their lengths, and by eight
    4-byte probes of the shorter one, most of which a copy holds.
    """
    short, other = sorted((sentences[i], sentences[j]), key=len)
    if len(short) < _SENTENCE_LIKENESS * len(other):
        return False
    probes = [short[at : at + 4] for at in range(0, len(short) - 3, max(1, (len(short) - 3) // 8))]
    if 2 * sum(map(other.__contains__, probes)) < len(probes):
        return False
    sets = []
    for k in (i, j):
        if k not in shingles:
            key = sentences[k]
            shingles[k] = {key[at : at + 4] for at in range(len(key) - 3)}
        sets.append(shingles[k])
    a, b = sets
    return len(a & b) >= _SENTENCE_LIKENESS * len(a | b)


# Fewest key bytes of a sentence that `_shuffled_copies` groups, about four words.
_SENTENCE_BYTES = 20
# A sentence or a clause of `_SENTENCE_BYTES` key bytes or more: a stretch between sentence ends, colons, semicolons
# (dashes are read as semicolons) or newlines, after one of them. A colon ends one too: shuffled, a lead-in
# (`... directly:`) would run into what follows.
_SENTENCE = re.compile(rb"(?<![^.!?:;\n])[^.!?:;\n]{%d,}" % _SENTENCE_BYTES)
# The bytes at each end of a sentence's key that a copy keeps, one of the two, when a word of it changes.
_SENTENCE_BAND = 12
# A sentence's opening band, found from the mark before it (no look-behind, so the scan skips ahead in C).
_SENTENCE_HEAD = re.compile(
    rb"[.!?:;\n]([^.!?:;\n]{%d})[^.!?:;\n]{%d,}" % (_SENTENCE_BAND, _SENTENCE_BYTES - _SENTENCE_BAND)
)
# Fewest times a band occurs for its sentences to be grouped (a copy of a paragraph written more than `limit` times
# keeps one of each sentence's bands; a few copies may keep the rarer one).
_WARM_BANDS = 3
# Least Jaccard likeness of two sentences' 4-byte shingles for one to be a copy of the other: a word changed in a
# sentence of 60 key bytes leaves about 0.75, two in one of 30 about 0.45; two sentences that open alike (`Therefore,
# the ...`) share far less.
_SENTENCE_LIKENESS = 0.4
# The anchored band of a long line: 32 key bytes from the first `e` at or past its 16th byte.
_ANCHORED_BAND = re.compile(rb"\n[^\n]{16}[^e\n]*(e[^\n]{31})")
# The same, one match for each line (b"" for a line without one), for lines joined by newlines after a newline.
_ANCHOR_OF_EACH = re.compile(rb"\n(?:[^\n]{16}[^e\n]*(e[^\n]{31})|)")


def _anchored_copies(long: list[bytes]) -> int:
    """Most long lines that share their anchored band: copies reworded at both ends, with the middle kept.

    The near-duplicate bands (a line's first or last bytes) miss a copy with new opening and closing words. An anchor
    chosen by content (the first `e` past the opening) moves with the text, so copies whose openings differ in length
    still cut their middle at one of a few `e`s: their bands fall into a few groups, not one per copy
    (content-defined chunking, as rsync does). One regex pass over the long lines, counted in C.
    """
    bands = _ANCHORED_BAND.findall(b"\n" + b"\n".join(long))
    return max(Counter(bands).values(), default=0)


def near_duplicate_line(text: str, min_chars: int) -> str:
    """The original text of a line with the most near-duplicates (only computed when the rule fails)."""
    half = min_chars // 2
    units = [
        (line, key[:half], key[-half:])
        for line, key in zip(text.split("\n"), line_keys(text), strict=True)
        if len(key) >= min_chars
    ]
    heads, tails = Counter(u[1] for u in units), Counter(u[2] for u in units)
    both = Counter((u[1], u[2]) for u in units)
    line, _, _ = max(units, key=lambda u: heads[u[1]] + tails[u[2]] - both[u[1], u[2]])
    return line.strip()


def most_repeated_line(text: str, min_chars: int) -> str:
    """The original text of the most repeated long line (only computed when the rule fails)."""
    lines = text.split("\n")
    keys = line_keys(text)
    counts = Counter(key for key in keys if len(key) >= min_chars)
    top = max(counts, key=counts.__getitem__)
    return lines[keys.index(top)].strip()


def looped_passage(text: str, min_chars: int) -> str:
    """The first line of the passage that loops longest (only computed when the rule fails)."""
    lines = exact_long_lines(text, min_chars)
    _, _, start = _longest_loop(lines, Counter(lines))
    return lines[start] if lines else ""
