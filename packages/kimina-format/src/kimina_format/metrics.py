"""Measure a parsed completion: lengths, repetition, tactic blocks, comment density, alignment, statement match.

Measuring is kept apart from judging (`kimina_format.rules`): metrics are reported whether or not a rule fails,
so a dashboard can plot how close completions come to each threshold.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from operator import add, attrgetter
from typing import Any, NamedTuple

from kimina_format.config import DEFAULT_CONFIG, FormatConfig
from kimina_format.lean_decls import THEOREM_KEYWORDS
from kimina_format.lean_source import (
    Comment,
    LeanParts,
    extension_line,
    line_end,
    non_space_length,
    plain_tactic_blocks,
    split_lean,
)
from kimina_format.lean_statement import LeanText
from kimina_format.padding import (
    blank_markup,
    junk_characters,
    marked_letters,
    mixed_script_letters,
    over_limit_run,
    padded,
    typographic_spaces,
)
from kimina_format.parsing import LEAN_LANGUAGES, TACTICS_LANGUAGE, UTF8_ERRORS, Block, Completion, frozen_instance
from kimina_format.repetition import (
    Repetition,
    inline_copies,
    line_keys,
    longest_loop,
    measure_repetition,
    passage_key,
)
from kimina_format.statement import final_statement_matches
from kimina_format.tactics import TACTIC_NAMES, identifier_words, iou, tactics_used

__all__ = ["FormatMetrics", "measure"]

# A tactic-block line that holds two of these words reads as English: none of them is Lean syntax or a tactic, and
# identifiers such as `is_lub` or `lt_of_le` do not match them as whole words.
_ENGLISH_WORDS = (
    "the we is are of to that which can will our be it an need now since because must should would let's us"
).split()
_PROSE_LINE = re.compile(r"\n(?:[^\n]*?\b(?:" + "|".join(map(re.escape, _ENGLISH_WORDS)) + r")\b){2}")
# The same words as identifiers, capitalised too: when none occurs in the tactic blocks (the usual case), no line can
# be prose and the line regex is not run.
_ENGLISH_IDENTIFIERS = frozenset(w.encode() for word in _ENGLISH_WORDS for w in (word, word.capitalize()))
_PUNCTUATION = re.compile(r"[^\w\s]+")
_ALNUM = re.compile(r"[^\W_]")
_DIGITS = re.compile(r"\d+")
# A prose line that is not words (after a newline, so the first line is left out): 40 or more printable ASCII
# characters with no space (base64, ASCII art, dumps), 40 or more lowercase letters and spaces only (word salad: no
# capital, digit or punctuation), 17 or more punctuation marks and spaces only (a rule too long for a bare line's
# key; a table's separator row is one such line), or six or more dashes, box-drawing lines and other marks from
# U+2000 to U+203F and U+2500 to U+257F (a rule). Other non-ASCII lines (Chinese, Unicode math) are never junk lines.
_JUNK_LINE = re.compile(
    rb"\n(?:[!-~]{40,}|[a-z ]{40,}| *[!-/:-@\[-`{-~][!-/:-@\[-`{-~ ]{16,}"
    rb"| *(?:\xe2[\x80\x94\x95][\x80-\xbf] *){6,})(?![^\n])"
)
# `punctuation_run_chars` counts runs of eight or more of one punctuation mark or symbol (any character but a letter,
# a digit or whitespace; `_` too), and stretches of twelve or more of them mixed, single spaces between them allowed:
# `........`, `||||||||`, `[][][][][][]`, `. . . . . .`, `。。。。。。。。`, `─═─═─═`. Shorter mixed ones end formulas and
# sentences (`$).......`). Two gates in C keep it off most real prose, which holds few: the ASCII marks made one byte
# (SOH; the text's own and the spaces deleted, the non-ASCII bytes made STX) and looked for eight in a row; and the
# same with every byte of a non-ASCII character made SOH too, looked for thirteen in a row (what the regex counts is
# 13 bytes or more when it holds a wide mark; `≤ √(ℝ)` is 11). Only past a gate is the prose matched.
_MARKS = string.punctuation.encode()
_MARK_TABLE = bytes.maketrans(_MARKS + bytes(range(128, 256)), b"\x01" * len(_MARKS) + b"\x02" * 128)
_WIDE_TO_MARK = bytes.maketrans(b"\x02", b"\x01")
_MARK_GATE = b"\x01" * 8
_WIDE_MARK_GATE = b"\x01" * 13
_MARK_STRETCH = re.compile(r"(?:[^\w\s]|_)(?:[^\w\s]|_| (?=[^\w\s]|_)){11,}|([^\w\s]|_)\1{7,}")
# English function words as names or parts of names (`the_difference_between`, `WE_NEED`, `TheStep`, `keyIsThat`,
# `fun (we need ...)`). Lean's keywords and Mathlib's names have none (`this` and `then` are keywords, `And`,
# `IsLeast`, `toReal` and `CanLift` names, so `and`, `is`, `to` and `can` are not among them; nor are `an` and `be`,
# a hypothesis about a term `a_n` or `b_e` being `h_an`). The code's ASCII letter runs are its words (one
# `bytes.translate`, then `split`, in C); only those that mix cases are cut at their humps.
_NAME_WORDS = "the we our that which because since would should must need will it there so when what how why".split()
_ENGLISH_NAME_WORDS = frozenset(
    form.encode() for word in _NAME_WORDS for form in (word, word.capitalize(), word.upper())
)
_LETTERS_ONLY = bytes.maketrans(
    bytes(range(256)),
    bytes(b if chr(b).isascii() and chr(b).isalpha() else 32 for b in range(256)),
)
_HUMP = re.compile(rb"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
# The name a `theorem` or `lemma` declares, and what may continue a name (`_theorem_line` looks for it in the code).
_DECLARED_NAME = re.compile(r"(?:^|\n)[^\S\n]*(?:theorem|lemma)\s+([^\s:({\[]+)")
_NAME_GOES_ON = re.compile(r"[\w.'!?]")
# A tactic that does nothing: `skip`, `trace_state`, `trace "..."`, `sleep 100`, `show _`, `rotate_left 0`, `iterate 0`,
# or a `have` of `True`. (A `have` of `(n : ℝ) = (n : ℝ)` is not one: real proofs write such casts.)
_FILLER = re.compile(
    r"(?<![\w.'])(?:skip|trace_state|show\s+_|rotate_(?:left|right)\s+0|iterate\s+0)(?![\w'])"
    r"|(?<![\w.'])(?:trace\s+\"|sleep\s+\d)|\bhave\b[^:\n]*:\s*True\s*:="
)
_FILLER_WORDS = ("skip", "True", "trace", "rotate_", "sleep")
# The lines that hold a `<;>` chain, once the chains that go on over a line break before or after a `<;>` are joined
# (tried at the start of each line only: from every character, a long line without `<;>` would cost its length
# squared); the marks `_chain_fillers` reads them by; and what makes two steps the same (spaces and parentheses aside:
# `(norm_num)` is `norm_num`).
_CHAIN = re.compile(r"^[^\n]*<;>[^\n]*", re.MULTILINE)
_CHAIN_BREAK = re.compile(r"(?:\n[^\S\n]*)?<;>[^\S\n]*\n|\n[^\S\n]*<;>")
_CHAIN_MARK = re.compile(r"<;>|[,;]|[(\[{⟨]|[)\]}⟩]")
_OPENING = frozenset("([{⟨")
_STEP_DELETE = str.maketrans("", "", " \t()")
_CHAIN_STEPS = 16
_STEP_COPIES = 6
_SHOW_HOLE = re.compile(r"show\s+_")
_ITERATE_NONE = re.compile(r"iterate\s+0")
_TRY = re.compile(r"(?<![\w.'])(?:try|repeat|iterate|first)(?![\w'])")
_TRY_WORDS = ("try", "repeat", "iterate", "first")
_COMMAND = re.compile(r"(?<![\w.'#])#[a-z_]+")
_LIST = re.compile(r"\[([^\[\]]*)\]")
# Hint lists of the arithmetic tactics, where an item written twice adds nothing (a rewrite or `simp only` list may
# use one lemma again and again: `rw [Finset.sum_range_succ, Finset.sum_range_succ]`).
_HINTS_BEFORE = re.compile(r"\b(?:nlinarith|linarith|positivity|polyrith)!?\s*$")
_MOST_SUMMARY_SENTENCES = 300  # past them the summary is far over `max_summary_chars` already
_LEAST_NEAR_WORDS, _MOST_NEAR_WORDS = 6, 40  # sentences compared with one word left out
_MOST_SUMMARY_NEAR_COPIES = 5  # sentences alike but for one word that a summary may write (five parallel cases)
_MIN_SUMMARY_SENTENCE = 16  # characters of a summary sentence whose copies count (`Done.` within lines may recur)
# Where a sentence ends: after `.`, `!`, `?` or `;` and a space, or at a line end (`3.5` and `Nat.succ` go on).
_SENTENCE_END = re.compile(r"(?<=[.!?;])[ \t]+|[ \t]*[\r\n]+[ \t]*")
# A sentence's leading label: a mark, up to three words, then one of at most 8 letters and `:`, `)` or `.` (`Step 2:`,
# `(b)`, `Important remark two:`).
_SENTENCE_LABEL = re.compile(r"^[^\w\s]*(?:\w+[ \t]+){0,3}\w{1,8}[.:)][ \t]+")
# A closing counter, once the spaces and closing marks are gone: `(3`, `[iv`, `#2` (`(mod 3)` is `(mod3`: kept).
_SENTENCE_COUNTER = re.compile(r"[(\[#]\w{1,4}$")
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_CLOSING_MARKS = ".!?;:…)]*_ \"'"
_ONE_NAME = re.compile(rb"[\w.']+")
_MIN_SUMMARY_COPY = 12  # key bytes of a summary line that copies one (`Answer:` or `∎` may stand anywhere)
_QUOTE_MARKS = b"-*>.)`#"  # list markers, quote marks and backticks (digits are no part of a key)
# The declarations `max_declaration_copies` compares: those that prove something.
_PROVED = THEOREM_KEYWORDS | {"example"}
_MIN_REPEATED_BLOCK = 20  # a fenced block shorter than this (`simp`, `norm_num`) may be tried again and again
# A tactic-block line that reads as a sentence: a capitalised word and three more words (no Lean line starts so:
# tactics are lower case and names are dotted, `Nat.le_of_lt`), maybe after a Markdown heading, bullet or number, or
# any line with LaTeX's `$` (`_LATEX_DOLLAR`).
_SENTENCE_LINE = re.compile(
    r"\n[ \t]*(?:#{1,6} |[-*] |\d+\. )?[A-Z][a-z]+(?:'[a-z]+)?(?:[ \t]+[A-Za-z]+(?:'[a-z]+)?[,.:;]?){3}"
)
# Kana, CJK ideographs and Hangul.
_CJK = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
# A word of three letters or more in any script, not part of a dotted, primed or numbered identifier (`Nat.succ`,
# `h'`, `h2`; `exact?` is the word `exact`); and the Lean words beside the tactic names that such words may be.
_WORD = re.compile(r"(?<![\w.'\\])[^\W\d_]{3,}(?![\w']|\.\w)")
_LEAN_WORDS = TACTIC_NAMES | frozenset(
    "at with using only from then else if fun by in show this let do end where match have calc theorem lemma def"
    " example open import set_option true false and or not sorry inl inr zero succ pred abs base step".split()
)
_LEAN_BYTES = frozenset(word.encode() for word in _LEAN_WORDS)
# A Latin letter with an accent (French, German or Spanish words) or a CJK character: no Lean name uses them.
_NON_ASCII_WORDS = re.compile("[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f" + _CJK + "]")
# How many such words make a tactic-block line a sentence (`does linarith work here?`, `Check the bound.`).
_WORDED = 2
_CODE_MARKS = (":=", "⟨", "←", "=>", "↦")  # Lean syntax no sentence writes: the words of such a line are names
# A hypothesis name (`hab`, `hpos`, `hsum`): a word, but Lean's.
_HYPOTHESIS = re.compile(r"h[a-z]{1,5}")
# Markdown or LaTeX in a tactic block: a heading, bold, `\(` or `\[`; or CJK characters (Lean names never use them).
_MARKUP = re.compile(r"(?m)^[ \t]*#{1,6}[ \t]|\*\*|\\[(\[]|[" + _CJK + "]")
# LaTeX's `$` touches what it delimits (`$x^2$`); Lean's `f $ x` has a space on each side.
_LATEX_DOLLAR = re.compile(r"\$[^\s$]|[^\s$]\$")
# A fence line with a language inside a block: the block before it was never closed.
_NESTED_FENCE = re.compile(r"\n[ \t]*```+[ \t]*[^\s`]")
# Bytes a prose line may hold and still be blank, as in the repetition keys: spaces, tabs and digits.
_KEY_BLANK = b" \t0123456789"
# Three blank lines or more (lines of spaces and tabs are blank), from the newline before them: the regex engine jumps
# from newline to newline in C.
_BLANK_RUN = re.compile(rb"\n(?:[ \t]*\n){3,}")
_VISIBLE_ASCII = bytes(range(33, 127))
_SUBSCRIPT_DIGITS = tuple(zip("₀₁₂₃₄₅₆₇₈₉", "0123456789", strict=True))
_SUBSCRIPT = re.compile("[₀-₉]")
_MIN_COPIED_KEY = 6
# The longest label (in key bytes: spaces and digits deleted) before a pasted line of code, `Step:`, `Next,apply`:
# the thirty-third red team's labels kept a thinking of the proof's lines, each labelled, on 140 of 188 rows.
_LONGEST_CODE_LABEL = 16
# The final code's longest keys that `_labelled_copies` looks for: a proof of more lines is over other bounds.
_MOST_LABELLED_KEYS = 200
# How prose marks a line of code, in keys (spaces and digits deleted): a list item (`-`, `*`, or numbered: `1.`),
# inline code, a formula (`$...$`), a quote (`>`), bold, and a list item of inline code or a formula.
_PROSE_MARKS = (
    *((b"-", b""), (b"*", b""), (b".", b""), (b">", b""), (b"`", b"`"), (b"$", b"$"), (b"$$", b"$$"), (b"**", b"**")),
    *((b"-`", b"`"), (b"*`", b"`"), (b".`", b"`"), (b">`", b"`"), (b"-$", b"$"), (b".$", b"$")),
)
_CASE_OPENERS = ("·", ". ", "|", "case ", "next")
# Tactics that close or split a goal and fail when there is none (or make no progress): Lean accepts only as many in a
# row as there are goals. Not `skip`, `try`, `all_goals`, `repeat`, `first`, `done`, `have`, `show`: those succeed
# again and again.
_GOAL_BOUND = frozenset(
    """
    linarith nlinarith positivity norm_num simp simp_all simpa omega ring ring_nf field_simp decide native_decide rfl
    exact exacts trivial tauto aesop assumption norm_cast exact_mod_cast push_cast bound gcongr linear_combination
    polyrith contradiction constructor refine refine' use exists existsi apply intro intros rintro cases cases' rcases
    obtain induction induction' interval_cases split_ifs by_cases left right ext funext nlinarith! linarith!
    """.split()
)
_LONGEST_LEAD_IN = 80  # key bytes of a line before a block that may be a stock lead-in rather than reasoning  # a prose line this short (`simp`) that equals a code line copies nothing
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
# Names that hold text: `«...»`, or a name longer than `_LONG_NAME` characters (real ones have at most 55).
_LONG_NAME = 80
_LITERAL_NAME = re.compile(r"«[^»]*»|[\w.']{" + str(_LONG_NAME + 1) + ",}")
# Comments that carry no information, after lower-casing and removing punctuation and numbers ("-- Step 2:").
PLACEHOLDER_COMMENTS = frozenset(
    {
        "", "proof", "the proof", "proof here", "your proof here", "proof goes here", "add proof here", "todo",
        "fixme", "done", "qed", "end", "step", "sorry", "placeholder", "fill in", "tactic", "tactics", "lean",
        "lean4", "lean code", "code", "complete the proof", "finish the proof", "continue", "etc", "here",
    }
)  # fmt: skip
_LONGEST_PLACEHOLDER = 40  # a comment longer than this (markers and spaces included) is never a placeholder


@dataclass(frozen=True)
class FormatMetrics:
    """Everything measured on one completion (JSON-friendly: numbers, booleans and tuples of numbers).

    The prose is the reasoning (the thinking outside its tactic and Lean blocks) and the summary between `</think>`
    and the final block; long lines are those of at least `repetition_min_chars` characters once case folded and
    their spaces and digits deleted.

    Attributes:
        chars: Characters in the completion.
        tokens: Tokens in the completion (from the tokenizer callback, else estimated from `chars`).
        thinking_chars: Characters inside the think element.
        summary_chars: Characters between `</think>` and the final block, surrounding whitespace excluded.
        after_code_chars: Characters after the final Lean block.
        code_chars: Characters in the final Lean block.
        code_lines: Non-comment, non-blank lines of the final Lean block.
        reasoning_lines: Lines of prose, blank ones included.
        max_line_repeats: Occurrences of the most repeated long prose line (near-duplicates merged).
        duplicate_line_ratio: Share of long prose lines that repeat an earlier one (by keys: digits deleted).
        long_line_repeats: Occurrences of the most repeated prose line of 80 key bytes or more (digits kept), when
            more than `max_long_line_repeats` (0 otherwise).
        passage_repeats: Occurrences of the most repeated prose paragraph of two lines or more and 80 key bytes or
            more, or pair of long prose lines in a row (digits kept), when more than `max_passage_repeats` (0
            otherwise).
        duplicate_line_share: Share of the distinct long prose lines that occur more than once, digit for digit,
            when over `max_duplicate_line_share` by keys with ten such lines at least (0 otherwise).
        echo_rate: Share of the long prose lines that echo (a sentence or clause said again at once on its line, or
            one phrase written twice), when four lines at least do (0 otherwise; see `FormatConfig.max_echo_rate`).
        consecutive_repeats: Copies in a row of the most looped passage of long prose lines (1: no loop).
        template_repeats: Copies in a row of the most looped passage of prose lines alike but for a word or two
            (digits kept), when more than `max_template_repeats` (0 otherwise).
        alike_lines: Most prose lines alike to one line with a word or two changed (numbers that change do not
            count), wherever they are, when more than `max_alike_lines` (0 otherwise).
        reworded_lines: Lines in a group of long prose lines that are one line with a word or two changed at places
            that vary (see `FormatConfig.max_reworded_lines`): the first group found of more than that bound (0 when
            there is none).
        shuffled_copies: Most long prose lines that hold a sentence of a paragraph written again and again in other
            orders, each maybe reworded a little, when more than `max_shuffled_copies` (0 otherwise).
        reworded_line_share: Share of the distinct prose lines of 60 key bytes or more that have a copy, word for
            word or changed at one place, when over `max_reworded_line_share` (0 otherwise).
        short_consecutive_repeats: Copies in a row of the most looped passage of prose lines of any length (blank
            lines aside, digits kept), when more than `max_short_consecutive_repeats` (0 otherwise).
        counted_lines: Prose lines in runs of one sentence written again and again in a row with a counter, all
            together, when more than `max_counted_lines` (0 otherwise).
        clause_repeats: Occurrences of the most repeated stretch of the prose (120 bytes from a clause's start, line
            breaks aside), when more than `max_clause_repeats` (0 otherwise).
        medium_line_repeats: Occurrences of the most repeated prose line of `template_min_chars` to
            `repetition_min_chars` key bytes, when there are more such lines than `max_medium_line_repeats` (0
            otherwise).
        loop_lines: Lines in one copy of that passage (long ones, or every non-blank one once confirmed; 0: no loop).
        near_duplicates: Most near-duplicates of one prose line of at least `near_duplicate_min_chars` characters,
            or lines holding its sentences in another order (a paragraph looped with its sentences shuffled).
        paraphrased_copies: Most long prose lines that share one anchored middle passage (copies reworded at both
            ends).
        paragraph_repeats: Occurrences of the most repeated paragraph of the thinking: a prose paragraph (by its
            keys, at least `repetition_min_chars` bytes; counted only when one of its lines occurs more than
            `max_paragraph_repeats` times) or a fenced block of at least 20 characters.
        often_repeated_lines: Occurrences, all together, of the long prose lines that each occur at least five
            times (by their keys; confirmed digit for digit when over `max_often_repeated_lines`).
        inline_repeats: Copies of one phrase within the most repetitive long line of the prose or the summary (see
            `kimina_format.repetition.inline_copies`), when more than `max_inline_repeats` (0 otherwise).
        block_loop_repeats: Copies in a row of the most looped passage of steps of the thinking (a tactic or Lean
            block with the prose before it), when more than `max_block_loop_repeats` (0 otherwise).
        summary_line_repeats: Occurrences of the most repeated non-blank line of the summary.
        summary_sentence_repeats: Occurrences of the most repeated sentence of the summary (split after `.`, `!`,
            `?` and `;`, and at line ends; 16 characters or more; case folded, spaces, a leading label and closing
            marks aside, digits kept).
        summary_code_lines: Lines of the summary whose key (case folded, spaces and digits deleted, list markers,
            quote marks and backticks stripped; 12 bytes or more) is that of a line of the final code, or the lines of
            the final code whose keys the summary's lines hold (`Use `nlinarith [h]`.`), whichever are more.
        summary_thinking_lines: Lines of the summary whose key (the same way) is that of a prose line of the
            thinking.
        summary_boxed: Boxed answers (LaTeX `boxed` commands) in the summary.
        summary_blocks: Fenced blocks in the summary (the final Lean block is the only code after the thinking).
        junk_lines: Prose lines after the first that are not words (see `FormatConfig.max_junk_lines`).
        bare_lines: Prose lines of punctuation marks and symbols with one letter or digit at most, when more than
            `max_bare_lines`, or than a third of the lines and 20 (0 otherwise).
        short_line_repeats: Occurrences of the most repeated short non-blank prose line, when the prose has more
            short lines than `max_short_line_repeats` (0 otherwise).
        repeated_remarks: Occurrences, all together, of the remarks (short prose lines of words alone, lead-ins
            aside, and short sentences that open or close a line) that each occur three times or more, when more
            than `max_repeated_remarks` (0 otherwise).
        mid_line_remarks: Occurrences, all together, of the short sentences of words alone that each occur twice or
            more in the middle of a prose line, when more than `max_mid_line_remarks` (0 otherwise).
        opener_share: Share of the non-blank prose lines that one opener opens or one closer closes (a word before a
            comma, a semicolon, a dash or an ellipsis, two words, or a question after a comma, a dash or a
            parenthesis: `Wait, ...`, `Okay so ...`, `..., right?`; an enumeration's cases once), when it takes 40
            lines or more and more than `max_opener_share` of them (0 otherwise).
        sentence_opener_share: Share of the prose's sentences inside a line that one tic opens (a word or two before
            a comma, a semicolon, a colon, a dash or an ellipsis: `Wait, `), when it opens 10 different ones or more
            (digits aside) and more than `max_sentence_opener_share` of them (0 otherwise).
        sentence_closer_share: Share of the prose's sentences that end in a word that one tic closes (up to three
            words after a comma, a semicolon, a dash or an ellipsis: `, I think.`), when it closes 10 different ones
            or more (digits aside) and more than `max_sentence_closer_share` of them (0 otherwise).
        longest_line_chars: Bytes in the key of the longest prose line (0 when no line is long).
        invisible_chars: Invisible characters anywhere (zero-width, format, control, non-ASCII spaces).
        symbol_chars: Pictographic characters anywhere (emoji, dingbats, private use).
        lookalike_chars: Letters anywhere that read as Latin ones but are other characters (see
            `FormatConfig.max_lookalike_chars`).
        punctuation_run_chars: Characters of the prose in runs of eight or more of one punctuation mark or symbol,
            or stretches of twelve or more of them mixed, within lines of text (see
            `FormatConfig.max_punctuation_run_chars`).
        tab_chars: Tab characters anywhere.
        blank_markup: Markup anywhere that renders as blank space or as nothing (`kimina_format.padding.blank_markup`),
            and the fenced blocks that hold nothing.
        space_run: Most spaces and tabs in a row anywhere, when more than `max_space_run` (0 otherwise: shorter runs
            are not measured, which would cost a dozen scans of the text).
        blank_line_run: Most blank lines in a row anywhere (lines of spaces or tabs are blank, and in the prose
            lines of digits too; a block cut out of the prose is a line), when more than `max_blank_lines` (0
            otherwise).
        extra_blank_lines: Blank lines that follow two blank lines, over the whole completion.
        whitespace_share: Share of the completion's characters that are spaces, tabs or newlines.
        trailing_space_lines: Lines anywhere that end in four spaces or more, or in a tab.
        spaced_gap_chars: Spaces between the words of a line past the first of each gap: runs of two or more spaces
            inside a line (three or more after a sentence's end, where two are a typist's habit), each but its first;
            a table's padding, comments or `:=` aligned in code, and lines without a word of four letters aside.
        deep_indent_chars: Spaces of indentation that no nesting needs: in the prose, past column 12; in the final
            code and the thinking's blocks, past 12 columns more than the line a line nests under (see
            `_nesting_excess`). Summed over the lines.
        indented_prose_lines: Lines of the prose indented by five columns or more.
        code_indent: The fewest spaces an indented line of the final code starts with (0 when none is indented).
        code_whitespace_share: The larger share of spaces, tabs and newlines: in the final code, or in the tactic
            blocks.
        tactic_blocks: Number of ```` ```tactics ```` blocks in the thinking.
        distinct_tactic_blocks: Number of different ones among them, by their code (comments and whitespace aside).
        unclosed_fences: Fenced blocks in the thinking that are never closed (at the end of the thinking, or where a
            fence with a language comes inside them).
        tactic_block_lines: Non-comment, non-blank lines of each tactic block.
        tactic_block_proof_lines: Proof lines (header and statement lines excluded) of each tactic block.
        longest_tactic_line: Non-whitespace characters of the longest tactic-block line of 256 characters or more
            (comments aside; 0 when no line is so long).
        padded_tactic_lines: Tactic-block lines of 256 characters or more that are one short unit written again
            and again (`kimina_format.padding.padded`).
        tactic_prose_lines: Tactic-block lines (comments aside; each occurrence counted) that read as English
            sentences, words, markup or LaTeX (see `FormatConfig.max_tactic_prose_lines`).
        final_proof_copies: Times the whole final proof (three lines or more, spacing, comments and the names of
            hypotheses aside) occurs in the tactic blocks.
        short_proof_copies: Times the whole final proof of one or two lines occurs in the tactic blocks, compared as
            `final_proof_copies` is.
        copied_code_share: Share of the thinking's characters in lines copied from the final code (a copied line
            counted without its spacing).
        copied_to_reasoning: The characters of `copied_code_share` over the reasoning's bytes (`reasoning_chars`).
        prose_code_share: Share of the prose's bytes (its keys: spaces and digits aside) in lines that equal a line of
            the final code by the same key, as written, marked as a list item or inline code, or with a label of up to
            16 key bytes before or after it.
        reasoning_chars: UTF-8 bytes of the thinking's prose, spaces, tabs, digits and newlines aside, without the
            line that leads into each block.
        code_loop_repeats: Copies in a row of the most looped passage of proof lines, in one tactic block or in the
            final proof, among those of more than `max_code_loop_repeats` lines (0 when there is none).
        comment_repeats: Occurrences of the most repeated comment of the final code (numbers folded).
        proof_lines: Non-comment, non-blank lines of the final proof body (header and statement excluded).
        proof_comment_chars: Non-whitespace characters of the comments in the final proof body.
        proof_comment_density: Share of the final proof body's non-whitespace characters that are comments.
        proof_prose_comment_chars: Key bytes of the final code's comment lines (24 key bytes or more; doc comments
            and the formal statement's own comments aside) that quote a prose line at their opening or ending, when
            five lines or more do, one is longer than a label, or together they are (counted until past
            `max_proof_prose_comment_chars`; 0 otherwise).
        code_comment_chars: Non-whitespace characters of all comments in the final code, doc comments included.
        code_comment_density: Share of the final code's non-whitespace characters that are comments.
        tactics_comment_chars: Non-whitespace characters of the comments in the tactic blocks.
        tactics_comment_density: Share of the tactic blocks' non-whitespace characters that are comments.
        boilerplate_comments: Comments with no letter or digit, placeholders (`-- TODO`), repeats of an earlier
            comment of the same block, in the final proof and the tactic blocks, and comments of the final code that
            are one of its lines (`nlinarith [h]  -- nlinarith [h]`).
        tactic_name_iou: IoU of the tactic names in the tactic blocks and in the final proof body.
        tactic_line_iou: IoU of the normalised proof lines in the tactic blocks and in the final proof body.
        tactic_name_coverage: Share of the final proof's tactic names that the tactic blocks also use.
        code_declarations: Declarations in the final code.
        declaration_copies: Most theorems, lemmas and examples of the final code with one statement and proof (their
            names aside, spacing deleted; 1 when none is written twice).
        filler_tactics: Tactics that do nothing in the final code and the tactic blocks, comments aside: `skip`,
            `trace_state`, `trace "..."`, `sleep`, `show _`, `rotate_left 0`, `iterate 0 ...` and a `have` of `True`.
        try_tactics: Tactics of the final code that may do nothing without failing (`try`, `repeat`, `iterate`,
            `first`), comments aside.
        guarded_steps: Steps of the final code that a guard governs (`all_goals`, `any_goals`, `try`, `repeat`,
            `iterate`, `first`, `fail_if_success`, `success_if_fail_with_msg`, `<;>`, `<|>`), comments aside: lines,
            `;`s, `<|>`s and alternatives (see `_guarded_steps`).
        header_lines: Non-blank lines of the final code outside its declarations and comments.
        header_repeats: Occurrences of the most repeated of those lines.
        code_commands: `#` commands (`#check`, `#eval`, ...) in the final code, comments aside.
        hint_items: Items in the longest bracketed list of the final proof.
        duplicate_hints: Most items of one hint list of the final proof (`nlinarith`, `linarith`, `positivity`,
            `polyrith`) that repeat an earlier item of that list.
        code_literal_chars: Characters in the string literals, the `«»` names and the names of more than 80
            characters of the final code.
        code_english_words: English function words (`the`, `we`, `because`, ...) in the final code and the tactic
            blocks outside their comments, as names or parts of names (`the_difference_between`).
        helper_chars: Non-whitespace characters of the final code's declarations other than its theorem (the
            `theorem` or `lemma` named as in the statement, else the last one): before it, and after its proof.
        trailing_declarations: Declarations of the final code after the proof of its theorem.
        longest_code_line: Non-whitespace characters of the final code's longest line (comments blanked).
        statement_match: Whether the final code holds the given statement (None when none was given or no code).
    """

    chars: int = 0
    tokens: int = 0
    thinking_chars: int = 0
    summary_chars: int = 0
    after_code_chars: int = 0
    code_chars: int = 0
    code_lines: int = 0
    reasoning_lines: int = 0
    max_line_repeats: int = 0
    duplicate_line_ratio: float = 0.0
    duplicate_line_share: float = 0.0
    echo_rate: float = 0.0
    passage_repeats: int = 0
    long_line_repeats: int = 0
    consecutive_repeats: int = 1
    template_repeats: int = 0
    alike_lines: int = 0
    reworded_lines: int = 0
    shuffled_copies: int = 0
    reworded_line_share: float = 0.0
    medium_line_repeats: int = 0
    short_consecutive_repeats: int = 0
    counted_lines: int = 0
    clause_repeats: int = 0
    loop_lines: int = 0
    near_duplicates: int = 0
    paraphrased_copies: int = 0
    short_line_repeats: int = 0
    paragraph_repeats: int = 0
    often_repeated_lines: int = 0
    inline_repeats: int = 0
    block_loop_repeats: int = 0
    summary_line_repeats: int = 0
    summary_sentence_repeats: int = 0
    summary_code_lines: int = 0
    summary_thinking_lines: int = 0
    summary_boxed: int = 0
    summary_blocks: int = 0
    junk_lines: int = 0
    bare_lines: int = 0
    repeated_remarks: int = 0
    mid_line_remarks: int = 0
    opener_share: float = 0.0
    sentence_opener_share: float = 0.0
    sentence_closer_share: float = 0.0
    longest_line_chars: int = 0
    invisible_chars: int = 0
    symbol_chars: int = 0
    lookalike_chars: int = 0
    punctuation_run_chars: int = 0
    tab_chars: int = 0
    blank_markup: int = 0
    space_run: int = 0
    blank_line_run: int = 0
    extra_blank_lines: int = 0
    whitespace_share: float = 0.0
    trailing_space_lines: int = 0
    spaced_gap_chars: int = 0
    deep_indent_chars: int = 0
    indented_prose_lines: int = 0
    code_indent: int = 0
    code_whitespace_share: float = 0.0
    tactic_blocks: int = 0
    distinct_tactic_blocks: int = 0
    unclosed_fences: int = 0
    tactic_block_lines: tuple[int, ...] = field(default=())
    tactic_block_proof_lines: tuple[int, ...] = field(default=())
    longest_tactic_line: int = 0
    padded_tactic_lines: int = 0
    tactic_prose_lines: int = 0
    final_proof_copies: int = 0
    short_proof_copies: int = 0
    copied_code_share: float = 0.0
    copied_to_reasoning: float = 0.0
    prose_code_share: float = 0.0
    reasoning_chars: int = 0
    code_loop_repeats: int = 0
    comment_repeats: int = 0
    proof_lines: int = 0
    proof_comment_chars: int = 0
    proof_comment_density: float = 0.0
    proof_prose_comment_chars: int = 0
    code_comment_chars: int = 0
    code_comment_density: float = 0.0
    tactics_comment_chars: int = 0
    tactics_comment_density: float = 0.0
    boilerplate_comments: int = 0
    tactic_name_iou: float = 0.0
    tactic_line_iou: float = 0.0
    tactic_name_coverage: float = 0.0
    code_declarations: int = 0
    declaration_copies: int = 0
    filler_tactics: int = 0
    try_tactics: int = 0
    guarded_steps: int = 0
    header_lines: int = 0
    header_repeats: int = 0
    code_commands: int = 0
    hint_items: int = 0
    duplicate_hints: int = 0
    code_literal_chars: int = 0
    code_english_words: int = 0
    helper_chars: int = 0
    trailing_declarations: int = 0
    longest_code_line: int = 0
    statement_match: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """The metrics as a plain dict (tuples become lists), ready for `json.dumps`."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


_METRIC_DEFAULTS = {f.name: f.default for f in fields(FormatMetrics)}
# The metrics that are measures of `Repetition`, by the name of each one's field there: read all at once, in C.
_REPETITION_METRICS = {
    "reasoning_lines": "lines",
    "max_line_repeats": "max_repeats",
    "duplicate_line_ratio": "duplicate_ratio",
    "consecutive_repeats": "consecutive",
    "template_repeats": "template_repeats",
    "alike_lines": "alike_lines",
    "medium_line_repeats": "medium_repeats",
    "short_consecutive_repeats": "short_loop",
    "reworded_lines": "reworded",
    "shuffled_copies": "shuffled_copies",
    "reworded_line_share": "reworded_share",
    "loop_lines": "loop_lines",
    "near_duplicates": "near_duplicates",
    "paraphrased_copies": "anchored_copies",
    "short_line_repeats": "short_repeats",
    "longest_line_chars": "longest_line",
    "often_repeated_lines": "often_repeated",
    "duplicate_line_share": "duplicate_share",
    "passage_repeats": "passage_repeats",
    "long_line_repeats": "long_repeats",
    "echo_rate": "echo_rate",
    "bare_lines": "bare_lines",
    "repeated_remarks": "remarks",
    "mid_line_remarks": "mid_line_remarks",
    "opener_share": "opener_share",
    "sentence_opener_share": "sentence_openers",
    "sentence_closer_share": "sentence_closers",
    "counted_lines": "counted_lines",
    "clause_repeats": "clause_repeats",
}
_REPETITION_VALUES = attrgetter(*_REPETITION_METRICS.values())


def _metrics(values: dict[str, Any]) -> FormatMetrics:
    """`FormatMetrics(**values)`, without its `__init__` (see `frozen_instance`).

    Its 50 `object.__setattr__` calls would cost more than all the rules together.
    """
    return frozen_instance(FormatMetrics, _METRIC_DEFAULTS, values)


def measure(
    completion: Completion,
    *,
    formal_statement: str | None = None,
    config: FormatConfig = DEFAULT_CONFIG,
    count_tokens: Callable[[str], int] | None = None,
) -> FormatMetrics:
    """Measure every quantity the rules judge.

    Args:
        completion: The parsed completion.
        formal_statement: The statement the model was asked to prove (header included or not), if known.
        config: Thresholds; the repetition settings and `chars_per_token` affect measuring.
        count_tokens: Exact token counter (e.g. `lambda s: len(tok.encode(s))`); else tokens are estimated.

    Returns:
        The metrics.
    """
    text = completion.text
    tokens = count_tokens(text) if count_tokens is not None else math.ceil(len(text) / config.chars_per_token)
    # Invisible characters, pictographs and tabs are junk wherever they are: the prose, the blocks, the code.
    data = text.encode(errors=UTF8_ERRORS)
    # The whitespace, the control bytes and the non-ASCII characters: what the junk and whitespace measures read.
    rest = data.translate(None, _VISIBLE_ASCII)
    junk = junk_characters(rest)
    wide_spaces = junk.invisible > 0  # a no-break or thin space is invisible junk until typography excuses it
    if junk.folds is None:
        repetition = measure_repetition(
            completion.prose_utf8,
            config,
            lambda: completion.prose,
            lambda: completion.block_edges,
            wide_spaces=wide_spaces,
        )
    else:
        # Copies disguised by accents or punctuation variants at other places are compared as the same text.
        folded = completion.prose.translate(junk.folds)
        repetition = measure_repetition(
            folded.encode(errors=UTF8_ERRORS),
            config,
            lambda: folded,
            lambda: completion.block_edges,
            wide_spaces=wide_spaces,
        )
    thinking_blocks = completion.thinking_blocks
    blocks = tactic_block_lines(completion.tactic_blocks)
    code = completion.code
    final = split_lean(code) if code is not None else None
    span = completion.thinking_span
    thinking_chars = span.end - span.start if span is not None else 0
    prose_utf8 = completion.prose_utf8
    whitespace = rest.count(b" ") + rest.count(b"\n") + rest.count(b"\t")
    blank_line_run, extra_blank_lines = _blank_lines(data, completion, repetition, config.max_blank_lines)

    summary = completion.summary
    summary_text = summary.strip()
    commented = blocks.comments
    tactics_comment_chars = (
        non_space_length("".join([c.text for comments in commented for c in comments])) if commented else 0
    )
    max_space_run = config.max_space_run
    metrics: dict[str, Any] = dict(zip(_REPETITION_METRICS, _REPETITION_VALUES(repetition), strict=True))
    metrics |= {
        "chars": len(text),
        "tokens": tokens,
        "thinking_chars": thinking_chars,
        "summary_chars": len(summary_text),
        "summary_line_repeats": _most_repeated_line(summary) if "\n" in summary_text else 0,
        "summary_sentence_repeats": _most_repeated_sentence(summary_text) if summary_text else 0,
        **_summary_copies(summary_text, repetition, code),
        "summary_boxed": summary.count("\\boxed"),
        "summary_blocks": _summary_blocks(completion),
        "block_loop_repeats": _block_loop(completion, config.max_block_loop_repeats),
        "inline_repeats": _inline_repeats_with_summary(
            repetition.inline_repeats, summary_text, config.max_inline_repeats
        ),
        "junk_lines": len(_JUNK_LINE.findall(prose_utf8)),
        "paragraph_repeats": max(repetition.paragraph_repeats, _block_repeats(thinking_blocks, blocks.keys)),
        "after_code_chars": len(completion.after_code),
        "code_chars": len(code) if code is not None else 0,
        "invisible_chars": (junk.invisible - typographic_spaces(data)) if junk.invisible else 0,
        "symbol_chars": junk.symbols,
        "lookalike_chars": junk.lookalikes
        + (mixed_script_letters(text) if junk.foreign else 0)
        + (marked_letters(text, junk.marks) if junk.marks else 0),
        "punctuation_run_chars": _punctuation_run_chars(prose_utf8, lambda: completion.prose),
        "tab_chars": junk.tabs,
        # An empty fenced block renders as an empty box: markup that shows nothing, as `blank_markup` counts.
        "blank_markup": blank_markup(data)
        + sum(not b.text.strip() for b in (*completion.thinking_blocks, *completion.other_blocks_after)),
        # Spaces and tabs make one run (`" \t" * 1000` is padding too).
        "space_run": over_limit_run(text.replace("\t", " ") if "\t" in text else text, " ", max_space_run),
        "blank_line_run": blank_line_run,
        "extra_blank_lines": extra_blank_lines,
        "whitespace_share": whitespace / len(data) if data else 0.0,
        # Spaces and a tab count, as in `max_space_run`; a trailing space is a slip real completions make, and two more
        # a Markdown line break written after it.
        "trailing_space_lines": data.count(b"    \n") + data.count(b"\t\n"),
        "spaced_gap_chars": _spaced_gap_chars(data),
        "deep_indent_chars": _prose_indent_excess(prose_utf8)
        # Each different block once: a draft written again is charged once, like a loop's other rules do.
        + sum(_nesting_excess(text, _FRAGMENT_COLUMN) for text in {block.text for block in thinking_blocks} - {code})
        + (_nesting_excess(code, 0) if code else 0),
        "indented_prose_lines": prose_utf8.count(b"\n     "),
        "code_indent": _code_indent(code) if code else 0,
        "tactic_blocks": len(blocks.code_lines),
        "distinct_tactic_blocks": len(set(blocks.keys)),
        "unclosed_fences": [block.closed for block in thinking_blocks].count(False)
        + _nested_fences(thinking_blocks)
        + _unclosed_tilde_fence(prose_utf8),
        "tactic_block_lines": blocks.code_lines,
        "tactic_block_proof_lines": blocks.proof_lines,
        "tactics_comment_chars": tactics_comment_chars,
        # The code of a block is its text with the comments blanked: it lacks exactly their non-whitespace characters.
        "tactics_comment_density": _density(tactics_comment_chars, blocks.chars - tactics_comment_chars),
    }
    think_names, think_invocations, english = tactics_used(blocks.body, _ENGLISH_IDENTIFIERS)
    prose_lines = _prose_lines(blocks.body, english=bool(english))
    # Words the final code uses outside its comments are Lean's here: a variable `total`, a hypothesis `key`.
    code_words = identifier_words(final.code) if final is not None else set()
    metrics["tactic_prose_lines"] = prose_lines + _worded_lines(blocks.body, code_words, english=bool(english))
    metrics["longest_tactic_line"], metrics["padded_tactic_lines"] = _long_tactic_lines(
        blocks.code, code or "", config.max_hint_items
    )
    metrics["reasoning_chars"] = _reasoning_chars(completion, repetition)
    metrics["code_loop_repeats"] = _code_loop(blocks, final, config.max_code_loop_repeats)
    metrics["filler_tactics"] = _filler_tactics(final.code if final is not None else "", blocks.body)
    block_code = blocks.body + blocks.other
    english_words = _english_words("\n".join(block_code)) if block_code else 0
    metrics["code_whitespace_share"] = max(_whitespace_share(blocks.text), _whitespace_share(code or ""))
    if final is None:
        return _metrics(metrics)

    comments = final.comments
    body_comments = final.body_comments
    proof_comment_chars = non_space_length("".join([c.text for c in body_comments])) if body_comments else 0
    code_comment_chars = non_space_length("".join([c.text for c in comments])) if comments else 0
    body_chars = non_space_length("".join(final.body))
    final_names, final_invocations, _ = tactics_used(final.body)
    prose_copies = _prose_copies(repetition, final)
    block_statements = _statements([*blocks.body, *blocks.other])
    copied = _copied_chars(block_statements, final) + prose_copies
    proof_copies, short_proof_copies = _final_proof_copies(block_statements, final)
    declarations, literal_chars, helper_chars, trailing, longest = _code_padding(final, formal_statement)
    metrics.update(
        code_lines=final.code_lines,
        proof_lines=len(final.body),
        proof_comment_chars=proof_comment_chars,
        proof_comment_density=_density(proof_comment_chars, body_chars),
        proof_prose_comment_chars=(
            _prose_comments(repetition, _own_comments(comments, formal_statement), config.max_proof_prose_comment_chars)
            if comments
            else 0
        ),
        code_comment_chars=code_comment_chars,
        # The code's non-comment characters are those of its lines, as split: header, signatures and proof body (the
        # `by` after `:=` aside).
        code_comment_density=_density(
            code_comment_chars, body_chars + non_space_length("".join(final.header + final.statements))
        ),
        final_proof_copies=proof_copies,
        short_proof_copies=short_proof_copies,
        copied_code_share=min(copied / thinking_chars, 1.0) if thinking_chars else 0.0,
        copied_to_reasoning=copied / max(metrics["reasoning_chars"], 1),
        prose_code_share=prose_copies / repetition.key_bytes if repetition.key_bytes else 0.0,
        # Repeats are counted over the whole final code: a comment written twenty times above the theorem is a loop.
        boilerplate_comments=(
            sum(map(_boilerplate_count, commented), _boilerplate_count(comments)) + _commented_code(final)
            if commented or comments
            else 0
        ),
        comment_repeats=_comment_repeats([final, *blocks.parts]),
        tactic_name_iou=iou(think_names, final_names),
        tactic_line_iou=iou(think_invocations, final_invocations),
        tactic_name_coverage=len(think_names & final_names) / len(final_names) if final_names else 1.0,
        statement_match=None if formal_statement is None else final_statement_matches(final, formal_statement),
        code_declarations=declarations,
        declaration_copies=_declaration_copies(final.source) if declarations > 1 else declarations,
        code_literal_chars=literal_chars,
        code_english_words=english_words + _english_words(final.code),
        **_proof_padding(final),
        helper_chars=helper_chars,
        trailing_declarations=trailing,
        longest_code_line=longest,
    )
    return _metrics(metrics)


# A gap of two spaces or more between two characters of a line, after a character that ends no sentence (one space
# is the gap), or of three or more after one: matched from its first two spaces (a literal, so the scan only stops at
# double spaces), the character before them checked behind. Indentation and trailing runs do not match; a tab on either
# side does not hide a run. Layout is not a gap: a table's cells padded to their column (a run next to `|`), and
# comments or `:=` aligned in code (a run before `--` or `:=`).
_SPACED_GAP = re.compile(rb"  (?:(?<=[^ \r\n.!?:|]  )| (?<=[.!?:]   )) *(?=[^ \r\n|])(?!:=|--)")
_FOUR_LETTERS = re.compile(rb"[A-Za-z]{4}")
# The prose (the thinking outside its blocks) is indented by at most 12 columns in real completions (lists, a few
# lines of code); past that, each column of indentation is padding.
_PROSE_COLUMN = 12
_DEEP_PROSE_LINE = b"\n" + b" " * (_PROSE_COLUMN + 1)
# Most columns a line of Lean is indented past the line it nests under, in real code: 10 (a continuation aligned
# under a bracket); a nesting level is 2 or 4.
_NEST_STEP = 12
# The column the first line of a tactic block nests under: blocks are fragments of a proof, cut at any depth (real
# ones start at column 20 at most; with the step, a fragment may start at column 36, depth 9 in the 4-space style).
_FRAGMENT_COLUMN = 24


def _spaced_gap_chars(data: bytes) -> int:
    """`spaced_gap_chars` of the completion's UTF-8 `data`: the spaces of each gap between words but its first.

    A gap on a line without a word of four letters is a column's alignment (a table of values written with spaces, a
    formula's terms aligned), not padding between words. Only the lines of the gaps are read.
    """
    extra = 0
    line_end, wordy = -1, False
    for gap in _SPACED_GAP.finditer(data):
        start, end = gap.span()
        if start > line_end:  # a new line: read once, however many gaps it holds (hostile text: one line of 200 KB)
            line_end = data.find(b"\n", end) % (len(data) + 1)
            wordy = _FOUR_LETTERS.search(data, data.rfind(b"\n", 0, start) + 1, line_end) is not None
        if wordy:
            extra += end - start - 1
    return extra


def _prose_indent_excess(prose: bytes) -> int:
    """The prose's part of `deep_indent_chars`: its spaces of indentation past `_PROSE_COLUMN`, summed.

    The prose is read line by line only when a line is that deep. A line aligned on the line above it (see
    `_aligned`) counts nothing.
    """
    if _DEEP_PROSE_LINE not in prose:
        return 0
    deep = 0
    above = b""
    for line in prose.split(b"\n"):
        indent = len(line) - len(line.lstrip(b" \t"))  # a tab as one column: not a way around the bound
        if indent > _PROSE_COLUMN and indent < len(line.rstrip()):
            # A derivation's next line aligned under the `=` or `&` of the line above it is layout.
            if not _aligned(above.decode(errors="replace"), indent, line[indent:].decode(errors="replace")):
                deep += indent - _PROSE_COLUMN
        if line.strip():
            above = line
    return deep


def _nesting_excess(code: str, base: int) -> int:
    """Columns of indentation in Lean `code` past what its nesting needs, summed over its lines.

    A line may be indented up to `_NEST_STEP` columns past the line it nests under: the nearest line before it that
    is less indented, or for the first line, column `base` (or itself, when it starts further left). Further, it must
    be aligned on the line it nests under (see `_aligned`: under its `calc`'s first term, a relation, a comment, just
    inside a bracket). A proof shifted right by 40 columns, or a nested block shifted past its `by`, counts 28
    columns or more on each of its lines; the 4-space style of deep nesting, nothing.
    """
    excess = 0
    under: list[tuple[int, str]] = []
    for line in code.split("\n"):
        stripped = line.lstrip(" ")
        if not stripped.strip():
            continue
        indent = len(line) - len(stripped)
        if not under:
            under.append((min(indent, base), ""))
        while len(under) > 1 and under[-1][0] >= indent:
            under.pop()
        if indent <= under[0][0]:
            under[0] = (indent, line)
            continue
        column, parent = under[-1]
        step = indent - column
        if step > _NEST_STEP and not _aligned(parent, indent, stripped):
            excess += step - _NEST_STEP
        under.append((indent, line))
    return excess


def _aligned(line: str, column: int, text: str) -> bool:
    """Whether `text`, a line's text from its first character at `column`, is aligned on `line` above it.

    It is when `column` is just inside a bracket of `line` (a list of hints under its `[`), at the first term after its
    `calc` or the first tactic after its `by`, or under one of its relations, an `&` or a comment (a derivation's `&=`
    or `=` under the one above, a comment continued under a comment); or when the relation that opens `text` stands
    under one of `line` (`_ = c` with its `=` under the `=` of the `calc` line).
    """
    if not 0 < column < len(line) or line[column] == " ":
        return False
    if line[column - 1] in "([{⟨" or line[column] in _ALIGNING or line.startswith("--", column):
        return True
    if line[:column].endswith(("calc ", "by ")):
        return True
    relation = next((i for i, char in enumerate(text[:3]) if char in _ALIGNING), None)
    return relation is not None and line[column + relation : column + relation + 1] in _ALIGNING


# The characters a continuation line may stand under: relations, and the `&` of a LaTeX alignment.
_ALIGNING = frozenset("=<>≤≥≠≡&")


def _code_indent(code: str) -> int:
    """`code_indent` of the final code: Lean accepts a proof indented by 40, as by 2, but the 38 are padding."""
    indents = [len(line) - len(line.lstrip(" ")) for line in code.split("\n") if line[:1] == " " and line.strip()]
    return min(indents, default=0)


def _summary_blocks(completion: Completion) -> int:
    """Fenced blocks between `</think>` and the first Lean block after it (the parser's other blocks there)."""
    others = completion.other_blocks_after
    if not others or not completion.think_closed:  # no summary without a closed thinking
        return 0
    end = completion.code_blocks[0].start if completion.code_blocks else len(completion.text)
    return sum(1 for block in others if block.start < end)


def _block_loop(completion: Completion, limit: int | None) -> int:
    """The thinking's `block_loop_repeats`: copies in a row of a passage of steps, when more than `limit`.

    A step is a tactic or Lean block with the prose before it, by their keys, so `Attempt 3:` and `Attempt 4:`
    before the same block are one step. Only a thinking of more than `limit` such blocks can hold such a loop.
    """
    blocks = [
        b.text for b in completion.thinking_blocks if b.language == TACTICS_LANGUAGE or b.language in LEAN_LANGUAGES
    ]
    if limit is None or len(blocks) <= limit:
        return 0
    # A loop of steps is a loop of their blocks, so the blocks alone (a third of the thinking) rule most thinkings out.
    block_keys = list(map(passage_key, blocks))
    if longest_loop(block_keys) <= limit:
        return 0
    steps = list(map(passage_key, map(add, completion.reasoning_pieces, blocks)))
    copies = max(longest_loop(steps), _block_run(steps, block_keys))
    return copies if copies > limit else 0


def _block_run(steps: list[bytes], block_keys: list[bytes]) -> int:
    """Most copies of one block written again at once, nothing but blank lines between.

    The first copy's prose leads into them all, so `steps` (prose and block) see one copy fewer. A step whose key is
    the block before it alone is that block again with no prose before it (blank lines have no key).
    """
    best = run = 1
    for i in range(1, len(steps)):
        run = run + 1 if steps[i] == block_keys[i - 1] else 1
        best = max(best, run)
    return best


def _inline_repeats_with_summary(prose: int, summary: str, limit: int | None) -> int:
    """The prose's `inline_repeats`, or the summary's when its most repetitive line breaks `limit`.

    The summary is at most a few lines, so each is confirmed.
    """
    if limit is None or not summary:
        return prose
    most = max(map(inline_copies, summary.split("\n")))
    return max(prose, most if most > limit else 0)


def _most_repeated_sentence(text: str) -> int:
    """Occurrences of the most repeated sentence of `text` (the summary).

    One sentence written again and again on one line is a loop that no count of lines sees. Sentences are compared
    case folded, without their spaces, invisible characters, a leading label (`Step 2:`, `Important remark two:`,
    `(b)`), a closing counter (`(3)`, `[iv]`, `#2`) or the marks that end them (`.`, `!`, `…`), but with their
    digits: cases that differ in their numbers alone (`If n ≡ 1 (mod 3), then n^2 ≡ 1.`) are an enumeration. More
    than `_MOST_SUMMARY_NEAR_COPIES` sentences of 6 to 40 words that differ in one word of three letters or more, at
    one place, count too: parallel sentences (`The first / second / third term is positive.`) are fewer.
    """
    counts: Counter[str] = Counter()
    near: Counter[tuple[int, str, str]] = Counter()
    for sentence in _SENTENCE_END.split(_INVISIBLE.sub("", text))[:_MOST_SUMMARY_SENTENCES]:
        words = _SENTENCE_LABEL.sub("", sentence.strip(), count=1).casefold().split()
        key = "".join(words).rstrip(_CLOSING_MARKS)
        key = _SENTENCE_COUNTER.sub("", key).rstrip(_CLOSING_MARKS)
        if len(key) < _MIN_SUMMARY_SENTENCE:
            continue
        counts[key] += 1
        if _LEAST_NEAR_WORDS <= len(words) <= _MOST_NEAR_WORDS:
            # One word changed from copy to copy (`We prove / show / establish the bound ...`): the sentence with
            # that word left out is the same. Numbers and one-letter names are kept: they tell cases apart.
            for i, word in enumerate(words):
                if len(word) >= 3 and word.isalpha():
                    near[i, " ".join(words[:i]), " ".join(words[i + 1 :])] += 1
    most_near = max(near.values(), default=0)
    return max(max(counts.values(), default=0), most_near if most_near > _MOST_SUMMARY_NEAR_COPIES else 0)


def _most_repeated_line(text: str) -> int:
    """Occurrences of the most repeated non-blank line of `text` (stripped), for the short summary region."""
    counts = Counter(filter(None, map(str.strip, text.split("\n"))))
    return max(counts.values(), default=0)


def _block_repeats(blocks: Iterable[Block], tactic_keys: list[bytes]) -> int:
    """Occurrences of the most repeated fenced block of the thinking of at least `_MIN_REPEATED_BLOCK` characters.

    Tactic blocks are compared by `tactic_keys` (their code, comments and whitespace removed), so a block written
    again under a new `-- attempt 7` comment or indented anew is the same block; other blocks by their text.
    """
    texts: list[bytes | str] = [key for key in tactic_keys if len(key) >= _MIN_REPEATED_BLOCK]
    texts += [b.text for b in blocks if b.language != TACTICS_LANGUAGE and len(b.text) >= _MIN_REPEATED_BLOCK]
    if len(set(texts)) == len(texts):  # the usual thinking: no block written twice, so no counting
        return 1 if texts else 0
    return max(Counter(texts).values())


def _blank_lines(data: bytes, completion: Completion, repetition: Repetition, limit: int | None) -> tuple[int, int]:
    """Blank lines: the most in a row anywhere (when more than `limit`, 0 otherwise) and the extra ones.

    `data` is the completion in UTF-8. A line of spaces or tabs is blank (ten thousand lines of one space are
    padding), and so, in the prose, is a line of digits (the repetition keys delete them). A block cut out of the
    prose is a line of its own there: eight blocks written one after the other, a blank line between each, are not
    twenty blank lines. The extra blank lines are those after the second of each run, over the whole completion:
    one or two blank lines between paragraphs are layout, nineteen between each is padding.
    """
    if limit is not None and limit < 3:  # a run of one or two blank lines matters: counted on the lines themselves
        run = over_limit_run(data.translate(None, b" \t"), b"\n", limit, offset=1)
    else:  # only runs of three blank lines or more matter: found by one regex, from each newline
        run = 0
    blanks = [found.count(b"\n") - 1 for found in _BLANK_RUN.findall(b"\n" + data)]
    if blanks and (limit is None or max(blanks) > limit):
        run = max(run, *blanks)
    if repetition.blank_lines:  # over the limit across the joined prose: measured again piece by piece
        pieces = [*completion.reasoning_pieces, completion.summary]
        keys = [piece.encode(errors=UTF8_ERRORS).translate(None, _KEY_BLANK) for piece in pieces]
        run = max(run, *(over_limit_run(key, b"\n", limit, offset=1) for key in keys))
    return run, sum(blanks) - 2 * len(blanks)


def _nested_fences(blocks: Iterable[Block]) -> int:
    """Blocks of the thinking that hold a fence line with a language: the block it opens was never closed.

    Markdown reads ```` ```tactics ```` inside an open block as text, so an unclosed block swallows the prose after
    it and the next block's code, and the prose after that reads as reasoning: code and prose change places.
    """
    texts = [b.text for b in blocks]
    if not _NESTED_FENCE.search("\n" + "\n".join(texts)):
        return 0
    return sum(1 for text in texts if _NESTED_FENCE.search("\n" + text))


def _unclosed_tilde_fence(prose: bytes) -> int:
    """1 when the prose opens a `~~~` fence (Markdown's other fence) that it never closes, else 0.

    Such a fence turns the rest of the thinking into code when rendered, as an unclosed ```` ``` ```` one does. A
    fence closes with a line of as many of its marks or more and nothing else. Fences of the other mark inside an
    open one are its text (`~~~~` in a ```` ```text ```` block); an unclosed ```` ``` ```` block is `unclosed_fences`'
    already.
    """
    if b"~~~" not in prose:
        return 0
    mark, opened = b"", 0
    for fence, info in _FENCE_LINE.findall(prose):
        if not opened:
            mark, opened = fence[:1], len(fence)
        elif fence[:1] == mark and len(fence) >= opened and not info.strip():
            opened = 0
    return 1 if opened and mark == b"~" else 0


# A Markdown fence line: up to three spaces, three backticks or tildes or more, then its info string.
_FENCE_LINE = re.compile(rb"^ {0,3}(`{3,}|~{3,})([^\n]*)", re.MULTILINE)


def _code_loop(blocks: TacticBlockLines, final: LeanParts | None, limit: int | None) -> int:
    """Most copies in a row of one passage of proof lines, in one tactic block or in the final proof.

    Lines compare with their spacing collapsed. A loop is what Lean would accept over and over: `skip`, `try
    norm_num` or `have h : True := trivial` written three hundred times. A passage of cases (`· norm_num` after
    `interval_cases`) or of tactics that close or split a goal and fail without one (`positivity` for each of nine
    goals after a `refine`, `constructor` then `norm_num`) is bounded by the goals, so in the final proof it is no
    loop; in a tactic block, which Lean does not check, such a line is excused only as often as the final proof
    writes it (a draft of the proof). Only a block or proof of more than `limit` lines can hold more than `limit`
    copies, so only those are measured (0 when none).
    """
    least = 2 if limit is None else limit + 1
    runs: list[int] = []
    written: Counter[str] = Counter()  # how often the final proof writes each goal-bound line
    if final is not None:
        body = [" ".join(line.split()) for line in final.body]
        written.update(line for line in body if _goal_bound(line))
        if len(body) >= least:
            runs.append(_lines_loop(body, set(written)))
    start = 0
    for count in blocks.proof_lines:
        if count >= least:
            lines = [" ".join(line.split()) for line in blocks.body[start : start + count]]
            here = Counter(lines)
            runs.append(
                _lines_loop(lines, {line for line, n in here.items() if _goal_bound(line) and written[line] >= n})
            )
        start += count
    return max(runs, default=0)


def _lines_loop(lines: list[str], excused: set[str]) -> int:
    """Copies in a row of the most looped passage of `lines`, 1 when none repeats in a row.

    A case line (`·`, `.`, `|`, `case`, `next`) and an `excused` line are made unique (their index), so no passage
    holding one repeats.
    """
    if len(set(lines)) == len(lines):
        return 1 if lines else 0
    keys = [f"\0{i}" if line in excused or line.startswith(_CASE_OPENERS) else line for i, line in enumerate(lines)]
    return longest_loop(keys)


def _goal_bound(line: str) -> bool:
    """Whether `line` is a tactic that closes or splits a goal and fails without one (so Lean bounds its copies)."""
    return line.split(None, 1)[0] in _GOAL_BOUND if line else False


def _whitespace_share(code: str) -> float:
    """Share of the bytes of `code` that are spaces, tabs or newlines (0 for no code)."""
    data = code.encode(errors=UTF8_ERRORS)
    return 1 - len(data.translate(None, b" \t\n")) / len(data) if data else 0.0


def _reasoning_chars(completion: Completion, repetition: Repetition) -> int:
    """Bytes of the thinking's prose (spaces, tabs, digits and newlines aside), but for the lines leading into blocks.

    The line before each block, when it is short (`Now in Lean:`), is left out: what remains is the reasoning once
    the stock lines around the code are taken out.
    """
    chars = repetition.key_bytes
    summary = completion.summary
    if summary.strip():
        chars -= len(_key_bytes(summary)) - summary.count("\n")
    for piece in completion.reasoning_pieces[:-1]:
        end = len(piece)  # the end of the last non-blank line, found without copying the piece
        while end and piece[end - 1].isspace():
            end -= 1
        lead_in = len(_key_bytes(piece[piece.rfind("\n", 0, end) + 1 : end]))
        if lead_in <= _LONGEST_LEAD_IN:  # a longer line before a block is a paragraph of reasoning
            chars -= lead_in
    return max(chars, 0)


def _key_bytes(text: str) -> bytes:
    """`text` in UTF-8 with spaces, tabs and digits deleted (a repetition key's bytes, case aside)."""
    return text.encode(errors=UTF8_ERRORS).translate(None, _KEY_BLANK)


def _comment_repeats(parts: Iterable[LeanParts]) -> int:
    """Occurrences of the most repeated comment of one Lean text (the final code, a tactic block), numbers folded.

    `-- check 7: ok` forty times is one comment repeated. A comment heading a case (the next line opens one: `·`,
    `.`, `|`, `case`, `next`) is not counted: a proof by cases may head each of twenty (`-- Case n = 3`).
    """
    most = 0
    for part in parts:
        comments = part.comments
        if len(comments) <= most:
            continue
        code = part.code
        keys = [_DIGITS.sub("0", " ".join(c.text.split())) for c in comments if not _heads_a_case(code, c)]
        most = max(most, *Counter(keys).values()) if keys else most
    return most


def _heads_a_case(code: str, comment: Comment) -> bool:
    """Whether the line after `comment` (its own line, in `code` with comments blanked) opens a case."""
    end = code.find("\n", comment.start + len(comment.text))
    if end == -1:
        return False
    after = code[end + 1 : end + 81].lstrip(" \t")  # the next line's start is enough
    return after.startswith(_CASE_OPENERS)


def _declaration_copies(code: str) -> int:
    """Most theorems, lemmas and examples of `code` that state and prove the same thing.

    Each is compared by its tokens after its name (`Declaration.tokens` of the shared outline, comments and spacing
    aside): the theorem pasted again as an `example` or under a new name is a copy Lean accepts.
    """
    proofs = [d.tokens for d in LeanText.of(code).declarations if d.keyword in _PROVED]
    return max(Counter(proofs).values(), default=0)


def _filler_tactics(code: str, block_lines: list[str]) -> int:
    """Tactics that do nothing in the final `code` (comments blanked) and the tactic blocks' `block_lines`."""
    text = "\n".join([code, *block_lines])
    # The regex has no literal to skip ahead to: what it needs is found in C first (real proofs have none of it).
    # `show` and `iterate` are common tactics, so for them the gate is a regex that starts with the word.
    gate = any(word in text for word in _FILLER_WORDS) or ("show" in text and _SHOW_HOLE.search(text) is not None)
    gate = gate or ("iterate" in text and _ITERATE_NONE.search(text) is not None)
    return (len(_FILLER.findall(text)) if gate else 0) + (_chain_fillers(text) if "<;>" in text else 0)


def _long_tactic_lines(text: str, code: str, most_items: int | None) -> tuple[int, int]:
    """`longest_tactic_line` and `padded_tactic_lines` of the tactic blocks' joined `text`, comments blanked.

    Nothing checks a tactic block's Lean, so one line of 20,000 `~` or a dozen lines of `&nbsp;` written 100 times pad
    a thinking without a word the English-line rules would see. Real tactic-block lines have 482 characters at most.
    A tactic with one list of names (`rw [Finset.sum_range_succ, ...]` twenty times, Lean's way to unfold a sum) of
    `most_items` items at most (`max_hint_items`, as in the final proof) is none, nor is a line of the final `code`
    (spaces aside), which a draft wrote first.
    """
    lines = [line.strip() for line in _LONG_TACTIC_LINE.findall(text)]  # a comment's line is blank now
    if not lines:
        return 0, 0
    drafts = [line for line in lines if len(line) >= _PADDED_LINE and padded(line)]
    listed = most_items if most_items is not None else len(text)
    drafts = [line for line in drafts if line.count(",") >= listed or _NAME_LIST.fullmatch(line) is None]
    if drafts:
        final = {"".join(line.split()) for line in code.split("\n") if len(line) >= _PADDED_LINE}
        drafts = [line for line in drafts if "".join(line.split()) not in final]
    return non_space_length(max(lines, key=len)), len(drafts)


# The tactic-block lines `_long_tactic_lines` reads: shorter ones cannot pad a block much (their number is bounded).
# Tried at the start of each line only (a short line would cost its length from each of its characters).
_PADDED_LINE = 256
_LONG_TACTIC_LINE = re.compile(rf"^[^\n]{{{_PADDED_LINE},}}", re.MULTILINE)
# A tactic and one list of names, rewrites or short proofs (`rw [Finset.sum_range_succ, ...] at h`, `simp only
# [...]`, `refine ⟨by decide, ...⟩`) of items of 64 characters at most each (their number is `max_hint_items`').
_LIST_ITEM = r"[^\S\n]*(?:←[^\S\n]*)?(?:by[^\S\n]+)?[\w.'⁻¹]{1,64}[^\S\n]*"
_NAME_LIST = re.compile(
    rf"[^\S\n]*[\w.']+(?:[^\S\n]+[\w.']+)*[^\S\n]*[\[⟨](?:{_LIST_ITEM},)*{_LIST_ITEM}[\]⟩](?:[^\S\n]+at[^\S\n][^\n]*)?"
)


def _chain_fillers(text: str) -> int:
    """Steps of the `<;>` chains of `text` that pad them: a step written a seventh time in its chain, or past its 16th.

    Once the goals are closed, `<;> norm_num` runs on none and fails nothing: Lean accepts a proof that ends in it
    300 times, or in `<;> norm_num <;> simp` 150 times, on one line or a step a line. Real chains here take four
    steps at most and a step twice at most (`ring_nf <;> norm_num <;> ring_nf <;> norm_num`); other provers write
    longer ones (`<;> norm_num <;> (try ring_nf) <;> norm_num <;> (try linarith) <;> norm_num`, `<;> linarith` five
    times between hint lists). Each bracket holds chains of its own, and a comma or a semicolon ends one: `⟨by
    norm_num <;> linarith, by norm_num <;> linarith, ...⟩` is a chain per component.
    """
    found = 0
    for line in _CHAIN.findall(_CHAIN_BREAK.sub(" <;> ", text)):
        chains = [_Chain(0)]  # the chain of each bracket open at this point of the line, innermost last
        for mark in _CHAIN_MARK.finditer(line):
            token = mark.group()
            if token in _OPENING:
                chains.append(_Chain(mark.end()))
                continue
            found += chains[-1].end_step(line, mark.start())
            if token == "<;>":
                chains[-1].after_combinator(mark.end())
            elif token in ",;" or len(chains) == 1:
                chains[-1] = _Chain(mark.end())  # a new chain (after a bracket the line did not open, too)
            else:
                chains.pop()
        found += sum(chain.end_step(line, len(line)) for chain in chains)
    return found


class _Chain:
    """A `<;>` chain being read by `_chain_fillers`: its steps so far, and where the step being read starts."""

    __slots__ = ("seen", "start", "steps", "stepping")

    def __init__(self, start: int) -> None:
        self.seen: Counter[str] = Counter()
        self.steps = 0
        self.start = start
        self.stepping = False  # whether a `<;>` came: what follows one is a step

    def after_combinator(self, at: int) -> None:
        self.stepping, self.start = True, at

    def end_step(self, line: str, at: int) -> int:
        """End the step read up to `at` (if a `<;>` came before it): 1 when it pads the chain, else 0."""
        if not self.stepping:
            return 0
        step = line[self.start : at].translate(_STEP_DELETE)
        self.seen[step] += 1
        self.steps += 1
        self.stepping = False
        return int(self.steps > _CHAIN_STEPS or self.seen[step] > _STEP_COPIES)


def _summary_copies(summary: str, repetition: Repetition, code: str | None) -> dict[str, int]:
    """`summary_code_lines` and `summary_thinking_lines`: the summary's lines that copy the final code or the prose.

    Lines are compared by their keys, with list markers, quote marks and backticks stripped. The prose's counts hold
    the summary's own lines too: a line copies the thinking when the prose has it more often than the summary does.
    """
    copies = {"summary_code_lines": 0, "summary_thinking_lines": 0}
    if not summary:
        return copies
    own = Counter(line_keys(summary))
    keys = [key for key in own.elements() if len(key) >= _MIN_SUMMARY_COPY]
    if not keys:
        return copies
    code_keys = {key.strip(_QUOTE_MARKS) for key in line_keys(code)} if code else set()
    prose = repetition.key_counts
    for key in keys:
        bare = key.strip(_QUOTE_MARKS)
        if bare in code_keys:
            copies["summary_code_lines"] += 1
        elif prose[key] > own[key] or (bare != key and prose[bare] > 0):
            copies["summary_thinking_lines"] += 1
    # Code lines within summary lines: quoted (`Use `nlinarith [h]`.`), or the proof joined into one line. The longest
    # first, each occurrence taken out once counted: a line quoted holds the shorter code lines it extends. A line
    # that is one name (`native_decide`) is a tactic that sentences may name again and again: it counts once.
    # Only the code lines the summary holds at all go into the loop over its lines (one search each in C).
    held = b"\n".join(keys)
    longest_first = sorted(
        (key for key in code_keys if len(key) >= _MIN_SUMMARY_COPY and key in held), key=len, reverse=True
    )
    within = 0
    names: set[bytes] = set()
    for line in keys:
        for key in longest_first:
            if key in line:
                if _ONE_NAME.fullmatch(key) is None:
                    within += line.count(key)
                else:
                    names.add(key)
                line = line.replace(key, b"\0")
    within += len(names)
    copies["summary_code_lines"] = max(copies["summary_code_lines"], within)
    return copies


# Guards: what runs the tactics after it on some goals, maybe none, or maybe not at all, and succeeds either way.
# `all_goals` runs its block on no goal once the proof is closed, `<;>` its right side on the goals its left side
# leaves, `t <|> u` runs `u` only when `t` fails, `try` undoes a failure: Lean accepts whatever parses there, a hundred
# lines under `all_goals` after the last goal, after `linarith <;>`, or after `done <|>`. The words take a block of
# tactics (a tactic sequence), but `first`, which takes alternatives; the combinators take one tactic.
_BLOCK_GUARDS: tuple[str, ...] = ("all_goals", "any_goals", "try", "repeat'", "repeat", "iterate", "fail_if_success")
_BLOCK_GUARDS += ("success_if_fail_with_msg",)
_COMBINATORS = ("<;>", "<|>")
_GUARD_WORDS = (*_BLOCK_GUARDS, "first", *_COMBINATORS)
# Literals alone, so the regex engine skips ahead to them in C; `_next_guard` checks that a word stands alone.
_GUARD = re.compile("|".join(map(re.escape, _GUARD_WORDS)))
# A line that ends in a guard (a word maybe with its argument: `iterate 3`, a message): the next line is the guard's.
_GUARD_AT_END = re.compile(
    rf"(?:(?<![\w.'])(?:{'|'.join(map(re.escape, (*_BLOCK_GUARDS, 'first')))})(?:[ \t]+(?:\d+|\"[^\"\n]*\"))?"
    rf"|{'|'.join(map(re.escape, _COMBINATORS))})[ \t]*$"
)
# What comes before a line's tactic: a bullet, or a case's head (`| succ n ih =>`, `case h =>`, `next =>`).
_CASE_HEAD = re.compile(r"[ \t]*(?:[·.][ \t]+|(?:\||case[ \t]|next\b)[^\n]*?=>[ \t]*)")
# An alternative of `first` (or of a pattern): a bar with space on each side, not `|x|` nor `<|>`.
_ALTERNATIVE = re.compile(r"(?<!\S)\|(?=\s)")
_BY = re.compile(r"(?<![\w.'])by(?![\w'])")
_NAME_CHAR = re.compile(r"[\w.']")
_BRACKET = re.compile(r"[(\[{⟨)\]}⟩]")


def _guarded_steps(code: str) -> int:
    """Steps of `code` (comments blanked) that a guard governs, so that they may never run (see `FormatMetrics`).

    A step is a line, a `;` (a `<;>` too), a `<|>`, an alternative's `|`, or a guard inside another (`all_goals try
    ...` is two). What a guard governs is `_region_end`'s. Each region is read once: the guards inside it are only
    counted (reading what each governs would read a line of nested guards again from each).
    """
    if '"' in code:
        code = _STRING.sub('""', code)  # a string's `(`, `;` or `try` is no Lean
    steps = 0
    found = _next_guard(code, 0)
    while found is not None:
        begin, end = found.end(), _region_end(code, found)
        found = _next_guard(code, begin)
        while found is not None and found.start() < end:
            steps += found.group() not in _COMBINATORS
            found = _next_guard(code, found.end())
        region = code[begin:end]
        lines = [line.lstrip() for line in region.split("\n")]
        held = sum(1 for line in lines if line and not line.startswith("|"))  # a `| t` line is a step by its bar
        steps += held + region.count(";") + region.count("<|>") + len(_ALTERNATIVE.findall(region))
    return steps


def _region_end(code: str, guard: re.Match[str]) -> int:
    """Offset where what `guard` governs in `code` ends: the rest of its line and what goes on from it.

    That is lines indented deeper than the guard's tactic (after a bullet or a case's head); lines at its column that
    start with `<;>`, `<|>`, `|` (a chain, `first`'s alternatives) or `_` (a calc's steps); lines inside a bracket it
    left open; and the line after one that ends in a guard, or, when that guard takes a block (see `_dangles`), every
    line from there at that line's column or deeper, as Lean reads a tactic sequence. Under a guard after a `by` on
    its line that does not end it (`calc a = b := by simp <;> ring`), the lines below are the structure's, but for
    those at the column of the first tactic of a block a guard on the line takes (`exact by simp <;> all_goals
    norm_num`, then lines under `norm_num`). A bracket closed with none open in the region closes nothing of it (in
    `(try simp) <;> (`, the `<;>` opens a bracket over the lines below).
    """
    start = code.rfind("\n", 0, guard.start()) + 1
    end = line_end(code, guard.end())
    head = code[start:end]
    at = guard.start() - start
    dangling, block = _dangles(head)
    case = _CASE_HEAD.match(head)
    # The guard's lines are those indented deeper than `outer`.
    outer = case.end() if case is not None and case.end() <= at else len(head) - len(head.lstrip())
    inline = not dangling and _BY.search(head, 0, at) is not None
    if inline:
        outer = len(head)
        taker = _next_guard(head, at)  # this guard, then those after it on the line: the first that takes a block
        while taker is not None and taker.group() not in _BLOCK_GUARDS:
            taker = _next_guard(head, taker.end())
        if taker is not None:
            outer = len(head) - len(head[taker.end() :].lstrip()) - 1
    goes_on = ("<;>", "<|>", "|") if inline else ("<;>", "<|>", "|", "_")
    depth = _depth(code[guard.end() : end])
    while end < len(code):
        line = code[end + 1 : line_end(code, end + 1)]
        stripped = line.lstrip()
        if stripped:
            column = len(line) - len(stripped)
            if block:  # a sequence's lines stand at its first line's column, or deeper
                outer = min(outer, column - 1)
            if not (dangling or depth > 0 or column > outer or (column == outer and stripped.startswith(goes_on))):
                break
            dangling, block = _dangles(line)
            depth = _depth(line, depth)
        end += 1 + len(line)
    return end


def _dangles(line: str) -> tuple[bool, bool]:
    """Whether `line` ends in a guard, and whether that guard takes a block of tactics (see `_BLOCK_GUARDS`)."""
    ending = _GUARD_AT_END.search(line)
    return ending is not None, ending is not None and ending.group().split()[0] in _BLOCK_GUARDS


def _next_guard(code: str, at: int) -> re.Match[str] | None:
    """The first guard of `code` from offset `at`: `<;>`, `<|>`, or a guard's word that is no part of a longer name."""
    found = _GUARD.search(code, at)
    while found is not None and found.group() not in _COMBINATORS:
        start, end = found.span()
        if not (start and _NAME_CHAR.match(code, start - 1)) and not _NAME_GOES_ON.match(code, end):
            return found
        found = _GUARD.search(code, end)
    return found


def _depth(text: str, depth: int = 0) -> int:
    """Brackets open after `text`, `depth` being open before it; a close with none open closes nothing."""
    for mark in _BRACKET.findall(text):
        if mark in _OPENING:
            depth += 1
        elif depth:
            depth -= 1
    return depth


def _proof_padding(final: LeanParts) -> dict[str, int]:
    """The final code's padding measures (see `FormatMetrics`).

    They are `try_tactics`, `header_lines`, `header_repeats`, `code_commands`, `hint_items` and `duplicate_hints`.
    """
    code = final.code
    tries = len(_TRY.findall(code)) if any(word in code for word in _TRY_WORDS) else 0
    header = Counter(filter(None, map(str.strip, final.header)))
    body = "\n".join(final.body)
    items = duplicates = 0
    texts = [body] if "[" in body else []
    if texts and body.count("[") > len(_LIST.findall(body)):
        # A list inside a list (`[h, ([] : List ℕ)]`) hides the outer one from the regex: it is read again with the
        # innermost lists blanked, so each is one item of the list around it.
        texts.append(_LIST.sub("∅", body))
    for text in texts:
        for found in _LIST.finditer(text):
            hints = [hint for hint in map(str.strip, found.group(1).split(",")) if hint]
            items = max(items, len(hints))
            repeats = len(hints) - len(set(hints))
            if repeats > duplicates and _HINTS_BEFORE.search(text[max(found.start() - 40, 0) : found.start()]):
                duplicates = repeats
    return {
        "try_tactics": tries,
        "guarded_steps": _guarded_steps(code) if any(word in code for word in _GUARD_WORDS) else 0,
        "header_lines": header.total(),
        "header_repeats": max(header.values(), default=0),
        "code_commands": len(_COMMAND.findall(code)) if "#" in code else 0,
        "hint_items": items,
        "duplicate_hints": duplicates,
    }


def _theorem_line(code: str, formal_statement: str | None) -> int:
    """Offset of the newline before the theorem of `code` that proves `formal_statement`, or -1 when none is found.

    The theorem named as the statement's last `theorem` or `lemma`, else the code's last `theorem` or `lemma`.
    """
    names = _DECLARED_NAME.findall(formal_statement) if formal_statement else []
    if names:
        # Substring searches, not a regex built from the name: one compiled per problem would be compiled again and
        # again in training, past the `re` module's cache.
        found = [at for keyword in ("\ntheorem ", "\nlemma ") if (at := _name_at(code, keyword + names[-1])) >= 0]
        if found:
            return min(found)
    return max(code.rfind("\ntheorem "), code.rfind("\nlemma "))


def _name_at(code: str, needle: str) -> int:
    """Offset of the first `needle` in `code` that a name character does not continue (-1 when there is none)."""
    at = code.find(needle)
    while at != -1 and _NAME_GOES_ON.match(code, at + len(needle)) is not None:
        at = code.find(needle, at + 1)
    return at


def _english_words(code: str) -> int:
    """English function words in `code` (comments blanked) as names or parts of names (see `_ENGLISH_NAME_WORDS`)."""
    words = Counter(code.encode(errors=UTF8_ERRORS).translate(_LETTERS_ONLY).split())
    found = sum(words[word] for word in _ENGLISH_NAME_WORDS.intersection(words))
    # Words that mix cases (`keyIsThat`, `TheStep`), cut at their humps; each kind once, counted as often as written.
    for word, count in words.items():
        if not (word.islower() or word.isupper() or word.istitle()):
            found += count * sum(map(_ENGLISH_NAME_WORDS.__contains__, _HUMP.findall(word)))
    return found


def _punctuation_run_chars(prose: bytes, text: Callable[[], str]) -> int:
    """Characters of the prose in runs and stretches of punctuation marks or symbols, within lines of text.

    `prose` is the prose in UTF-8 and `text()` gives it as a string. Runs are of eight or more of one mark, stretches
    of twelve or more mixed, with single spaces between them allowed (`. . . . . .`). A line that is one run or
    stretch alone (a Markdown rule, a Setext underline, a table's separator row, a box-drawing rule) is layout; the
    line rules bound such lines written again and again. The gates are in C (see `_MARK_GATE`); only past them is
    the prose matched.
    """
    marks = prose.translate(_MARK_TABLE, b"\x01\x02 ")
    if _MARK_GATE not in marks and _WIDE_MARK_GATE not in marks.translate(_WIDE_TO_MARK):
        return 0
    prose_text = text()
    return sum(
        match.end() - match.start()
        for match in _MARK_STRETCH.finditer(prose_text)
        if not _alone_on_its_line(prose_text, *match.span())
    )


def _alone_on_its_line(text: str, start: int, end: int) -> bool:
    """Whether only whitespace stands between `text[start:end]` and the ends of its line.

    It steps over the whitespace next to the span only, not back to the line's start: a line of thousands of runs
    costs each run its own neighbourhood.
    """
    before, after, size = start, end, len(text)
    while before and text[before - 1] != "\n" and text[before - 1].isspace():
        before -= 1
    while after < size and text[after] != "\n" and text[after].isspace():
        after += 1
    return (before == 0 or text[before - 1] == "\n") and (after == size or text[after] == "\n")


def _code_padding(final: LeanParts, formal_statement: str | None) -> tuple[int, int, int, int, int]:
    """What the final code holds besides its theorem: declarations, literal text, helpers, declarations after it.

    The theorem is the one named as in `formal_statement` (else the last `theorem` or `lemma`); helpers are the
    declarations before it and whatever follows its proof (a `def` of a 9,000-character sum or ten `example`s after
    the proof serve it no more than before it, and a `lemma` written last does not make them helpers).

    Returns:
        `code_declarations`, `code_literal_chars`, `helper_chars`, `trailing_declarations` and
        `longest_code_line`.
    """
    code = final.code
    literal_chars = sum(map(len, _STRING.findall(code))) if '"' in code else 0
    # Prose as names: `theorem «the whole reasoning» : True := trivial`, or one name of 300 words joined by `_`.
    # Only the lines that could hold such a name are searched (a regex pass over all the code costs more than the
    # rest of this rule).
    lines = code.split("\n")
    named = code if "«" in code else "\n".join([line for line in lines if len(line) > _LONG_NAME])
    literal_chars += sum(map(len, _LITERAL_NAME.findall(named))) if named else 0
    declarations = len(final.statements)
    helper_chars = trailing = 0
    # Read with one declaration too: what follows its proof may be `notation` or `macro` lines, not declarations.
    last = _theorem_line(code, formal_statement)
    if last != -1:
        if last > final.declarations_start:
            helper_chars = non_space_length(code[final.declarations_start : last])
        # The theorem's proof ends where the next declaration or header line starts.
        end = next((stop for start, stop in final.body_regions if start > last), len(code))
        tail = code[end:]
        if tail.strip():
            helper_chars += non_space_length(tail)
            # Notations and macros after the proof are declarations too: nothing before them can use them.
            after = split_lean(tail)
            trailing = len(after.statements) + sum(map(extension_line, after.header))
    return declarations, literal_chars, helper_chars, trailing, non_space_length(max(lines, key=len))


class TacticBlockLines(NamedTuple):
    """The lines of a completion's tactic blocks (see `tactic_block_lines`)."""

    code_lines: tuple[int, ...]
    proof_lines: tuple[int, ...]
    body: list[str]
    other: list[str]
    comments: list[tuple[Comment, ...]]
    chars: int
    text: str
    keys: list[bytes]
    parts: list[LeanParts]
    code: str


def tactic_block_lines(blocks: Iterable[Block]) -> TacticBlockLines:
    """Take the tactic blocks apart: each one's code and proof lines, all their proof lines, the comments of each.

    `other` holds the header lines and declaration signatures of the blocks that have some. `text` is the blocks'
    texts joined, and `chars` counts its non-whitespace characters, comments included. `keys` are the blocks' codes
    in UTF-8, comments and whitespace removed; `parts` the blocks with comments, split; `code` the blocks' texts
    joined with their comments blanked. A block of plain tactics
    (most are: `plain_tactic_blocks` finds them all in one search) needs only its lines stripped; the others go
    through `split_lean`.
    """
    code_lines: list[int] = []
    proof_counts: list[int] = []
    body: list[str] = []
    other: list[str] = []
    comments: list[tuple[Comment, ...]] = []
    commented: list[LeanParts] = []
    texts = [block.text for block in blocks]
    codes = texts.copy()  # each block's text with its comments blanked
    for i, (text, lines) in enumerate(zip(texts, plain_tactic_blocks(texts), strict=True)):
        if lines is None:
            parts = split_lean(text)
            lines = parts.body
            code_lines.append(parts.code_lines)
            other += parts.header
            other += parts.statements
            if parts.comments:
                comments.append(parts.comments)
                commented.append(parts)
                codes[i] = parts.code
        else:
            code_lines.append(len(lines))
        proof_counts.append(len(lines))
        body += lines
    joined = "\n".join(texts)  # a newline apart: the lines of two blocks stay two lines
    # Each block's code with its spaces, tabs and newlines deleted, all at once (joined by a byte that is none of them).
    keys = "\0".join(codes).encode(errors=UTF8_ERRORS).translate(None, b" \t\n").split(b"\0") if codes else []
    return TacticBlockLines(
        tuple(code_lines),
        tuple(proof_counts),
        body,
        other,
        comments,
        non_space_length(joined),
        joined,
        keys,
        commented,
        "\n".join(codes),
    )


def _prose_lines(lines: list[str], *, english: bool) -> int:
    """Lines that read as English, not Lean (a line written in every block counts every time).

    Such a line holds two or more English function words that Lean never uses, or is a sentence (a capitalised word
    and three more words: `The bound follows from the hypothesis`), or holds LaTeX (`$`). `english` says whether any of the function words occurs in `lines` at all (`tactics_used` finds that cheaply).
    """
    joined = "\n" + "\n".join(lines)
    sentences = ("$" in joined and _LATEX_DOLLAR.search(joined) is not None) or _SENTENCE_LINE.search(
        joined
    ) is not None
    if not english and not sentences:
        return 0
    if not sentences:
        return len(_PROSE_LINE.findall(joined.lower()))
    return sum(1 for line in lines if _is_prose("\n" + line, english=english))


def _worded_lines(lines: list[str], code_words: set[bytes], *, english: bool) -> int:
    """Lines that `_prose_lines` does not count but that read as words, not Lean.

    Such a line holds `_WORDED` different words of three letters or more, in any script (`simplify`, `sides`,
    `côtés`, `SIMPLIFY`), that are no tactic, no Lean keyword or common name (`first`, `using`, `with`, `then`,
    `inl`, `succ`) and no hypothesis name (`hab`); or Markdown or LaTeX markup (a heading, bold, LaTeX brackets); or
    CJK characters. No real tactic line holds two such words (`exact Nat.le_induction base step n h4` is the most);
    a sentence holds them by the handful, in lowercase or not, with no function word `_prose_lines` knows. Words of
    `code_words` (`identifier_words` of the final code, comments aside) are Lean's: a variable named `total`, a
    hypothesis `key`.
    """
    joined = "\n".join(lines)
    # The gate, mostly in C: the ASCII words that are no Lean word, two of which a worded line needs; accented
    # letters, markup and CJK (which split ASCII words) are looked for apart.
    ascii_words = identifier_words(joined) - _LEAN_BYTES - code_words
    candidates = [word for word in ascii_words if len(word) >= 3 and word.rstrip(b".?!").isalpha()]
    markup = any(mark in joined for mark in ("#", "**", "\\")) and _MARKUP.search(joined) is not None
    if len(candidates) < _WORDED and not markup and _NON_ASCII_WORDS.search(joined) is None:
        return 0
    # The set difference in C leaves the few words that are not Lean's as written (most are tactic names).
    words = {
        word
        for word in set(_WORD.findall(joined)) - _LEAN_WORDS - {word.decode() for word in code_words}
        if word.lower() not in _LEAN_WORDS and not _HYPOTHESIS.fullmatch(word)
    }
    if len(words) < _WORDED and _MARKUP.search(joined) is None:
        return 0
    found = 0
    for line in lines:
        if any(mark in line for mark in _CODE_MARKS):
            continue  # binders or a term (`obtain ⟨quotient, remainder⟩ := ...`): names, not words
        worded = len({word for word in _WORD.findall(line) if word in words}) >= _WORDED
        if (worded or _MARKUP.search(line) is not None) and not _is_prose("\n" + line, english=english):
            found += 1
    return found


def _is_prose(line: str, *, english: bool) -> bool:
    """`_prose_lines` for one line, after a newline."""
    if ("$" in line and _LATEX_DOLLAR.search(line)) or _SENTENCE_LINE.match(line) is not None:
        return True
    return english and _PROSE_LINE.match(line.lower()) is not None


def _final_proof_copies(block_statements: list[str], final: LeanParts) -> tuple[int, int]:
    """Times the final proof body occurs in the tactic blocks' statements, when it is long and when it is short.

    Both are compared by `_statements` (spacing deleted, cut at `;`, the hypotheses' names folded: a copy that
    renames `h₀` to `hA0` is still a copy). A body of `_MIN_PROOF_COPY_LINES` lines or more counts wherever it stands
    in the blocks; a shorter one (`norm_num`, which many steps of a thinking try) only as whole statements
    (`nlinarith [...]` holds no copy of `linarith`, nor `norm_num at h` of `norm_num`).
    """
    key = list(filter(None, _statements(list(final.body))))
    codes = list(filter(None, block_statements))
    if not key or not codes:
        return 0, 0
    if sum(1 for line in final.body if line.strip()) >= _MIN_PROOF_COPY_LINES:
        return "".join(codes).count("".join(key)), 0
    if len(key) == 1:
        return 0, codes.count(key[0])
    return 0, sum(map(tuple(key).__eq__, zip(*(codes[at:] for at in range(len(key))), strict=False)))


# A proof of one or two lines (`norm_num`, `decide`) is what many steps of a thinking try.
_MIN_PROOF_COPY_LINES = 3


def _copied_chars(block_statements: list[str], final: LeanParts) -> int:
    """Characters of the tactic blocks' statements copied from the final code (each counted without its spacing).

    Tactic-block statements (`block_statements`, by `_statements`) count when they equal one of the final code's
    (its header, its signatures and its proof, split the same way): spacing deleted, subscript digits written as
    digits, hypotheses' names folded, lines cut at `;` and `<;>`, so a proof pasted re-spaced, joined on one line or
    with its hypotheses renamed is still a copy. The prose's copies (`_prose_copies`) are counted apart.
    """
    final_statements = set(_statements([*final.body, *final.header, *final.statements]))
    return sum(map(len, filter(final_statements.__contains__, block_statements)))


def _prose_copies(repetition: Repetition, final: LeanParts) -> int:
    """Bytes of the prose's keys in lines whose key is a final-code line's, counted as often as the prose has them."""
    counts = repetition.key_counts
    if not counts:
        return 0
    # The final code's keys are few: each is looked up in the prose's counts (not the other way round), as written
    # and as a Markdown list item or inline code would write it (`- nlinarith [...]`, `` `linarith` ``).
    keys = [key for key in set(line_keys(final.code)) if len(key) >= _MIN_COPIED_KEY]
    found = list(filter(counts.__contains__, keys))
    copied = sum(len(key) * counts[key] for key in found)
    for before, after in _PROSE_MARKS:
        marked = list(filter(counts.__contains__, [before + key + after for key in keys]))
        copied += sum((len(key) - len(before) - len(after)) * counts[key] for key in marked)
        found += marked
    return copied + _labelled_copies(counts, keys, set(found)) if keys else copied


def _labelled_copies(counts: Counter[bytes], keys: list[bytes], found: set[bytes]) -> int:
    """Bytes of the prose's keys in lines that are a final-code line with a short label (`Then: norm_num (done)`).

    A label of up to `_LONGEST_CODE_LABEL` key bytes before or after it, any words or marks, hides a pasted line
    from `_PROSE_MARKS`; a line that quotes a line of code in a longer sentence is reasoning. `found` are the lines
    counted already (copies as written, or marked as a list item or inline code). Each code key is searched for in
    the prose's distinct keys short enough to hold it and a label, joined (in C), so only the lines that hold one
    cost Python. A line counts once, for the longest key it holds: the keys' order is their length, not a set's.
    """
    keys = sorted(keys, key=lambda key: (-len(key), key))[:_MOST_LABELLED_KEYS]
    longest = len(keys[0]) + _LONGEST_CODE_LABEL
    prose = b"\n".join([line for line in counts if len(line) <= longest])
    counted: set[int] = set()
    copied = 0
    for key in keys:
        at = prose.find(key)
        while at >= 0:
            start = prose.rfind(b"\n", 0, at) + 1
            end = prose.find(b"\n", at)
            end = len(prose) if end < 0 else end
            line = prose[start:end]
            if 0 < end - start - len(key) <= _LONGEST_CODE_LABEL and start not in counted and line not in found:
                counted.add(start)
                copied += len(key) * counts[line]
            at = prose.find(key, end)
    return copied


def _own_comments(comments: Sequence[Comment], formal_statement: str | None) -> list[Comment]:
    """The comments of the final code, anywhere, that quote no problem: neither doc comments nor the statement's own.

    A `--` or `/- -/` comment above the theorem counts with the proof's: the reasoning pasted there is as much a copy
    as between the tactics. A doc comment states the problem (real completions copy its text from the prompt, which
    the thinking restates too); `code_comment_free_chars` bounds those.
    """
    return [c for c in comments if not c.is_doc and (not formal_statement or c.text not in formal_statement)]


def _prose_comments(repetition: Repetition, comments: Sequence[Comment], limit: int | None) -> int:
    """Key bytes of the lines of `comments` that quote a prose line: the reasoning moved into the proof.

    Lines of `_MIN_PROSE_COMMENT` key bytes or more (comment marks aside) count when their opening or their ending
    (`_PROSE_COMMENT_BAND` bytes) is a piece of a prose line: a sentence cut where the writer likes, given a label
    (`Step 3: ...`) or with a word changed; but not an item of a list (a plan's step used as a label). Counted until
    the total passes `limit`, over the first `_MOST_PROSE_COMMENTS` such lines: each is searched for in the whole
    prose, and more of them break the comment bounds anyway. Fewer than `_FEW_PROSE_COMMENTS` such lines count
    nothing, unless one is longer than `_LONGEST_LABEL_COMMENT` or together they pass `_MOST_LABEL_COMMENT_BYTES`: a
    plan's steps, written as sentences in the thinking, may label the proof's first steps.
    """
    keys = [key.strip(b"-/!*") for comment in comments for key in line_keys(comment.text)]
    keys = [key for key in keys if len(key) >= _MIN_PROSE_COMMENT][:_MOST_PROSE_COMMENTS]
    if not keys or not repetition.key_counts:
        return 0
    prose = b"\n".join(repetition.key_counts)
    band = _PROSE_COMMENT_BAND
    total = quoted = 0
    for key in keys:
        at = prose.find(key[:band])
        if at < 0:
            at = prose.find(key[-band:])
        if at < 0:
            continue
        # A plan listed in the thinking (`1. Expand and collect the terms.`) names the proof's steps: its items are
        # lines of their own, about as long as the comment.
        end = prose.find(b"\n", at)
        line = prose[prose.rfind(b"\n", 0, at) + 1 : end if end >= 0 else len(prose)]
        if (
            line[:1] in _LIST_MARKS
            and len(line) <= len(key) + _PROSE_COMMENT_SLACK
            and len(key) <= _LONGEST_LABEL_COMMENT
        ):
            continue
        total += len(key)
        # A line longer than a label's is the reasoning moved, however few (`:= by -- <a paragraph>`).
        quoted += _FEW_PROSE_COMMENTS if len(key) > _LONGEST_LABEL_COMMENT else 1
        if limit is not None and total > limit and quoted >= _FEW_PROSE_COMMENTS:
            break
    return total if quoted >= _FEW_PROSE_COMMENTS or total > _MOST_LABEL_COMMENT_BYTES else 0


# A comment line of fewer key bytes (`-- base case`, `-- Expand the square`) names a step, whatever the prose says;
# 100 lines of 24 bytes are over `max_code_comment_chars` already. A band of 20 key bytes is four words or so: a
# clause, not a stock phrase. 40 and 30 before 0.13.0: the reasoning cut into comments of 38 characters, one above
# each tactic, kept the full score on 179 of 188 rows (the nineteenth red team). Three or four comments that quote a
# plan written as sentences label steps (the twentieth red team): five or more are the reasoning moved.
_FEW_PROSE_COMMENTS = 5
# One comment line of more key bytes than this (about 120 characters) that quotes the prose counts alone (0.18.0):
# one `--` comment on the `:= by` line holding 300 characters of the reasoning kept the full score on 100 of 133
# rows (the thirty-third red team).
_LONGEST_LABEL_COMMENT = 100
# Fewer lines than `_FEW_PROSE_COMMENTS` count once they quote more key bytes than this together: four comment lines
# of 110 characters each kept the full score on 81 of 112 rows (the thirty-fourth red team's attack); four labels of
# a plan's steps, a sentence each, hold about 240.
_MOST_LABEL_COMMENT_BYTES = 240
_MIN_PROSE_COMMENT = 24
_MOST_PROSE_COMMENTS = 100
_PROSE_COMMENT_BAND = 20
# A list item's key starts with its mark (a number's digits are deleted: `1.` is `.`); a few bytes of end marks.
_LIST_MARKS = (b"-", b"*", b"+", b".", b")")
_PROSE_COMMENT_SLACK = 4


# A name a copy of the proof may give a hypothesis instead: any name that starts with `h` or `H` and holds no dot
# (`h`, `h₀`, `hx`, `hA0`, `H1`, `hyp3`, `h₀_3`, `h3a`, the `h₀` of `h₀.1`; `have` too, on both sides alike): code is
# compared with them folded to `h`. (`_HYPOTHESIS` tells a word of a tactic block's line that is a hypothesis's
# name, not English.)
_RENAMABLE = re.compile(r"(?<![\w.'])[hH][\w']*")


def _statements(lines: list[str]) -> list[str]:
    """The Lean statements of `lines`, cut at `;` and `<;>`, spacing deleted, with subscript digits made digits.

    The hypotheses' names are folded (`_RENAMABLE`): a copy that renames them is still a copy.
    """
    joined = "\n".join(lines)
    if _SUBSCRIPT.search(joined):
        for subscript, digit in _SUBSCRIPT_DIGITS:
            joined = joined.replace(subscript, digit)
    if ";" in joined:
        joined = joined.replace("<;>", "\n").replace(";", "\n")
    joined = _RENAMABLE.sub("h", joined)
    return joined.replace(" ", "").replace("\t", "").split("\n")


def _density(comment_chars: int, code_chars: int) -> float:
    total = comment_chars + code_chars
    return comment_chars / total if total else 0.0


def _boilerplate_count(comments: Iterable[Comment]) -> int:
    """Comments that say nothing: no letter or digit, a placeholder phrase, or a repeat of an earlier comment."""
    seen: set[str] = set()
    count = 0
    for comment in comments:
        key = " ".join(comment.text.lower().split())
        if key in seen or _ALNUM.search(key) is None or (len(key) <= _LONGEST_PLACEHOLDER and _is_placeholder(key)):
            count += 1
        seen.add(key)
    return count


def _commented_code(final: LeanParts) -> int:
    """Comments of the final code that are one of its lines, spacing aside (`nlinarith [h]  -- nlinarith [h]`)."""
    comments = final.comments
    if not comments:
        return 0
    lines = set(_statements([*final.body, *final.statements]))
    lines.discard("")
    texts = _statements([comment.text.strip("-/ \n") for comment in comments])
    return sum(1 for text in texts if len(text) >= _MIN_COPIED_KEY and text in lines)


def _is_placeholder(comment: str) -> bool:
    words = " ".join(_DIGITS.sub("", _PUNCTUATION.sub(" ", comment)).split())
    return words in PLACEHOLDER_COMMENTS
