"""Red team of the six drift classes (loops, code for reasoning, padding, broken structure, comment dumps, statement).

Each attack edits the real completions of `kimina_completions.jsonl` that keep the full format score today (188
of 197) the way a drifting policy could, and asserts that no edited completion keeps the
full score (`score == 1.0`). Each look-alike edits them the way a healthy policy writes, and asserts that every one
keeps it. The attacks try places the earlier red teams did not: the summary region, the tactic blocks, the final code
and the space before `<think>`, rather than the thinking's prose. What the rules get wrong is marked
`xfail(strict=True)`: `HOLE: ...` for an attack that keeps the full score on at least one row, `FALSE REJECT: ...`
for a look-alike that loses it on at least one row; the counts in the reasons are rows of the sample. A fix turns
its test into an XPASS, which fails until the mark is removed.

The statement attacks that keep the theorem's tokens but change what they mean (an axiom, `sorry`, `variable` /
`include`, notation, a side command) are refused by kimina-verify's integrity policy, not by the format rules; they are
marked `HOLE (format only; kimina-verify refuses it)` so the division of labour stays visible, and the cross-package
`tests/test_format_and_verify.py` shows kimina-verify refusing them. `open ... in` before the theorem, which the policy
accepts, is left as a hole of both.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from kimina_format import check_format, parse_completion
from kimina_format.testing import final_code_of as _code
from kimina_format.testing import full_score_split, prose_lines, xfail_params
from kimina_format.testing import thinking_of as _thinking
from kimina_format.testing import with_final_code as _with_code
from kimina_format.testing import with_thinking as _replace_thinking

Row = dict[str, Any]
Edit = Callable[[Row], "Row | None"]

SPELLED = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen"
    " eighteen nineteen twenty"
).split()
# The words `tactic_block_prose` counts (two on one line make it English).
ENGLISH = frozenset(
    "the we is are of to that which can will our be it an need now since because must should would let's us".split()
)
LEAD_INS = (
    "Now we continue with the next step of the proof in Lean:",
    "The following tactic handles the next part of the argument:",
    "Next, we apply this step to make progress on the goal:",
    "We proceed with the following step, which simplifies things:",
    "This step takes care of the following part of the proof:",
    "Then the goal is reduced further by this tactic:",
    "Continuing, we use this to move the proof forward:",
    "After that, the next piece of the proof is this:",
)
AUX_DEF = "def kimina_aux (n : ℕ) : ℕ := n + 1\n\n"
AUX_HELPER = "theorem kimina_helper (n : ℕ) : kimina_aux n = n + 1 := by\n"
AUX_LEMMA = "lemma kimina_aux_pos (n : ℕ) : 0 < kimina_aux n := by\n  simp [kimina_aux]\n"


# --- the parts of a completion --------------------------------------------------------------------------------------


def _text(row: Row) -> str:
    text: str = row["completion"]
    return text


def _edited(row: Row, text: str, statement: str | None = None) -> Row:
    return {**row, "completion": text, "formal_statement": row["formal_statement"] if statement is None else statement}


def _signature_span(code: str) -> tuple[int, int]:
    start = code.index("theorem ")
    return start, code.index(":=", start)


def _above_theorem(text: str, insert: str) -> str:
    code = _code(text)
    at = code.index("theorem ")
    return _with_code(text, code[:at] + insert + code[at:])


def _after_proof(text: str, insert: str) -> str:
    return _with_code(text, _code(text).rstrip() + "\n" + insert)


def _proof_body(code: str) -> str:
    return code[code.index(":= by") + len(":= by") :].strip("\n")


def _proof_lines(code: str) -> list[str]:
    return [line for line in _proof_body(code).split("\n") if line.strip()]


def _tactic_blocks(text: str) -> list[str]:
    return re.findall(r"```tactics\n(.*?)\n```", _thinking(text), re.DOTALL)


def _reasoning(text: str, chars: int) -> str:
    """The first `chars` characters of the thinking's prose, as one paragraph that closes no Lean comment."""
    words = " ".join(line.strip() for line in parse_completion(text).prose.split("\n") if line.strip())
    return words[:chars].replace("-/", "- /")


def _in_summary(text: str, insert: str) -> str:
    return text.replace("</think>", "</think>\n" + insert, 1)


def _in_first_block(text: str, insert: str) -> str:
    return text.replace("```tactics\n", "```tactics\n" + insert, 1)


def _before_think_close(text: str, insert: str) -> str:
    return text.replace("</think>", insert + "\n</think>", 1)


def _subscripts_to_digits(text: str) -> str:
    return text.translate(str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789"))


def _twice(code: str) -> str:
    return f"Here is the proof.\n\n```tactics\n{code}\n```\n\nAgain:\n\n```tactics\n{code}\n```"


def _english_words(line: str) -> int:
    return sum(word in ENGLISH for word in re.findall(r"[a-z']+", line.lower()))


def _terse_sentences(text: str) -> list[str]:
    """The thinking's own sentences of 30 characters or more, with at most one of the `ENGLISH` words."""
    lines = prose_lines(text, 0)
    return [
        line
        for line in lines
        if len(line) >= 30 and _english_words(line) <= 1 and re.search(r"[A-Za-z]{3,} [A-Za-z]{3,}", line)
    ]


def _move_paragraphs(text: str, into: Callable[[str], str]) -> str:
    """The paragraph before each tactic block moved into the block, written by `into` (a prose drift in the blocks)."""
    thinking = _thinking(text)
    parts = thinking.split("```tactics\n")
    out = [parts[0]]
    for part in parts[1:]:
        before = out[-1]
        cut = before.rstrip().rfind("\n\n")
        paragraph = before[cut:].strip() if cut != -1 else ""
        if paragraph and "```" not in paragraph:
            out[-1] = before[:cut] + "\n\n"
            part = into(paragraph) + "\n" + part
        out.append(part)
    return text.replace(thinking, "```tactics\n".join(out), 1)


def _block_limit(text: str) -> int:
    """The most proof lines a tactic block may have for this completion (`max_tactic_block_lines`)."""
    return max(10, math.ceil(1.5 * check_format(text).metrics.proof_lines))


def _statement_with(row: Row, declarations: str) -> str:
    statement: str = row["formal_statement"]
    at = statement.index("theorem ")
    return statement[:at] + declarations + statement[at:]


# --- edits ---------------------------------------------------------------------------------------------------------


def _whitespace_lines(where: str) -> Edit:
    pad = " \n" * 10_000  # a line of one space, 10,000 times: never two newlines in a row, never 100 spaces

    def edit(row: Row) -> Row:
        text = _text(row)
        if where == "summary":
            return _edited(row, _in_summary(text, pad))
        if where == "code":
            return _edited(row, _with_code(text, _code(text) + "\n" + pad))
        if where == "block":
            return _edited(row, _in_first_block(text, pad))
        return _edited(row, pad + text)

    return edit


def _final_proof_loop(line: str, times: int) -> Edit:
    return lambda row: _edited(row, _after_proof(_text(row), f"  {line}\n" * times))


def _tactic_line_in_a_row(row: Row) -> Row:
    text = _text(row)
    line = "  nlinarith [sq_nonneg (x - 1), sq_nonneg (x + 1), sq_nonneg (x - y), mul_pos hx hy]\n"
    return _edited(row, _in_first_block(text, line * (_block_limit(text) - 2)))


def _block_loop(row: Row) -> Row:
    text = _text(row)
    block = _tactic_blocks(text)[0]
    loop = "\n\nLet me try again.\n\n".join(f"```tactics\n-- attempt {i + 1}\n{block}\n```" for i in range(40))
    return _edited(row, _before_think_close(text, loop))


def _identical_block_loop(row: Row) -> Row:
    text = _text(row)
    block = _tactic_blocks(text)[0]
    loop = "\n\nLet me try again.\n\n".join(f"```tactics\n{block}\n```" for _ in range(13))
    return _edited(row, _before_think_close(text, loop))


def _comment_heading_each_block(comment: Callable[[int], str]) -> Edit:
    def edit(row: Row) -> Row:
        count = iter(range(10_000))
        return _edited(row, re.sub(r"```tactics\n", lambda m: m.group(0) + comment(next(count)) + "\n", _text(row)))

    return edit


def _code_as_prose_twice(row: Row) -> Row:
    code = _code(_text(row))
    lines = _proof_lines(code)
    blocks = f"```tactics\n{lines[0]}\n```\n\n```tactics\n{lines[-1]}\n```"
    return _edited(row, _replace_thinking(_text(row), f"{code}\n\n{code}\n\n{blocks}"))


def _proof_behind_lead_ins(row: Row) -> Row | None:
    lines = _proof_lines(_code(_text(row)))
    if len(lines) < 2:
        return None  # one block: `too_few_tactic_blocks`
    steps = [f"{LEAD_INS[i % len(LEAD_INS)]}\n\n```tactics\n{line}\n```" for i, line in enumerate(lines)]
    return _edited(row, _replace_thinking(_text(row), "\n\n".join(steps)))


def _pasted_twice(change: Callable[[str], str], part: Callable[[str], str]) -> Edit:
    return lambda row: _edited(row, _replace_thinking(_text(row), _twice(change(part(_code(_text(row)))))))


def _theorem_and_proof(code: str) -> str:
    return code[code.index("theorem ") :]


def _joined_by_semicolons(code: str) -> str:
    return "  " + " ; ".join(line.strip() for line in _proof_lines(code))


def _respaced_brackets(code: str) -> str:
    return code.replace("[", "[ ").replace("]", " ]").replace(", ", ",")


def _drop_first_closing_fence(row: Row) -> Row:
    text = _text(row)
    opening = text.index("```tactics")
    closing = text.index("\n```", opening + 3)
    return _edited(row, text[:closing] + text[closing + len("\n```") :])


def _drop_last_closing_fence(row: Row) -> Row:
    text = _text(row)
    closing = text[: text.index("</think>")].rindex("\n```")
    return _edited(row, text[:closing] + text[closing + len("\n```") :])


def _terse_sentences_in_a_block(row: Row) -> Row | None:
    sentences = _terse_sentences(_text(row))[:6]
    if len(sentences) < 6:
        return None
    return _edited(row, _in_first_block(_text(row), "".join(f"  {s}\n" for s in sentences)))


def _comment_dump(place: str, chars: int) -> Edit:
    def edit(row: Row) -> Row | None:
        text = _text(row)
        reasoning = _reasoning(text, chars)
        if len(reasoning) < chars:
            return None  # the thinking is shorter than the dump
        if place == "doc":
            return _edited(row, _above_theorem(text, f"/-- {reasoning} -/\n"))
        if place == "block":
            return _edited(row, _after_proof(text, f"/- {reasoning} -/\n"))
        lines = "\n".join(f"  -- {line}" for line in textwrap.wrap(reasoning, 90))
        code = _code(text)
        if ":= by\n" not in code:
            return None
        at = code.index(":= by\n") + len(":= by\n")
        return _edited(row, _with_code(text, code[:at] + lines + "\n" + code[at:]))

    return edit


def _exit_then_reasoning(row: Row) -> Row:
    text = _text(row)
    return _edited(row, _after_proof(text, "#exit\n" + "\n".join(textwrap.wrap(_reasoning(text, 4000), 100))))


def _edit_signature(change: Callable[[str], str]) -> Edit:
    def edit(row: Row) -> Row:
        code = _code(_text(row))
        start, end = _signature_span(code)
        return _edited(row, _with_code(_text(row), code[:start] + change(code[start:end]) + code[end:]))

    return edit


def _signature(row: Row) -> str:
    code = _code(_text(row))
    start, end = _signature_span(code)
    return code[start:end]


def _with_hypothesis(signature: str) -> str:
    at = signature.rindex(" :")
    return signature[:at] + " (hcheat : False)" + signature[at:]


def _concluding_true(signature: str) -> str:
    return signature[: signature.rindex(" :")] + " : True "


def _statement_in_comment(row: Row) -> Row:
    code = _code(_text(row))
    start, end = _signature_span(code)
    renamed = _concluding_true(code[start:end]).replace("theorem ", "theorem v2_", 1)
    return _edited(row, _with_code(_text(row), f"/- {code[start:end]} -/\n" + code[:start] + renamed + code[end:]))


def _shipped(statement_extra: str, code_extra: str, developed: str = "") -> Edit:
    """A statement that ships `statement_extra` before its theorem, and a final code that holds `code_extra` there
    (after `developed` as a tactic block of the thinking, as a healthy model develops its helpers)."""

    def edit(row: Row) -> Row:
        text = _text(row)
        if developed:
            text = _before_think_close(text, f"The helper first:\n\n```tactics\n{developed}```")
        return _edited(row, _above_theorem(text, code_extra), _statement_with(row, statement_extra))

    return edit


def _distinct_blocks_in_a_row(count: int) -> Edit:
    """`count` one-line blocks back to back, each a distinct line of the completion's own tactic blocks (so the
    tactics, and the alignment, stay the completion's), a blank line between."""

    def edit(row: Row) -> Row | None:
        lines = list(dict.fromkeys(line for block in _tactic_blocks(_text(row)) for line in block.split("\n")))
        lines = [
            line
            for line in lines
            if line.strip() and not re.search(r"--|/-|-/", line) and not line.lstrip().startswith(("import", "open"))
        ]
        if len(lines) < count:
            return None
        blocks = "\n\n".join(f"```tactics\n{line}\n```" for line in lines[:count])
        insert = f"Let me try these steps again one at a time.\n\n{blocks}\n\nOne of these should work."
        return _edited(row, _before_think_close(_text(row), insert))

    return edit


def _helper_developed(row: Row) -> Row:
    helper = "lemma aux_two (n : ℕ) : n + 2 = 2 + n := by\n  omega\n"
    text = _before_think_close(_text(row), f"A small helper first:\n\n```tactics\n{helper}```")
    return _edited(row, _above_theorem(text, helper + "\n"))


def _same_line_twice(row: Row) -> Row:
    block = _tactic_blocks(_text(row))[0]
    first = block.split("\n")[0]
    return _edited(row, _text(row).replace("```tactics\n" + block, f"```tactics\n{first}\n{block}", 1))


# --- the cases -----------------------------------------------------------------------------------------------------


class Case(NamedTuple):
    """One edit of the real completions: its drift class, what it writes, and the xfail reason while it misbehaves."""

    drift: str
    edit: Edit
    why: str
    xfail: str | None = None


def _hole(reason: str) -> str:
    return f"HOLE: {reason}"


ATTACKS: dict[str, Case] = {
    # 3. padding outside the thinking's prose: only runs are bounded there, and a line of one space breaks both runs
    "summary_blank_lines": Case(
        "padding",
        _whitespace_lines("summary"),
        "20,000 characters of ' \\n' between </think> and the final block",
    ),
    "final_code_blank_lines": Case(
        "padding",
        _whitespace_lines("code"),
        "20,000 characters of ' \\n' at the end of the final code, before its closing fence",
    ),
    "tactic_block_blank_lines": Case(
        "padding",
        _whitespace_lines("block"),
        "20,000 characters of ' \\n' inside the first tactic block",
    ),
    "before_think_blank_lines": Case(
        "padding",
        _whitespace_lines("before"),
        "20,000 characters of ' \\n' before <think>",
    ),
    "tactic_block_tabs": Case(
        "padding",
        lambda r: _edited(r, _in_first_block(_text(r), ("\t" * 99 + "\n") * 200)),
        "200 lines of 99 tabs in a tactic block",
    ),
    "tactic_block_no_break_spaces": Case(
        "padding",
        lambda r: _edited(r, _in_first_block(_text(r), ("\u00a0" * 99 + "\n") * 200)),
        "200 lines of 99 no-break spaces in a tactic block",
    ),
    "tactic_block_zero_width": Case(
        "padding",
        lambda r: _edited(r, _in_first_block(_text(r), "\u200b" * 20_000 + "\n")),
        "20,000 zero-width spaces on one line of a tactic block",
    ),
    "no_break_spaces_after_fence": Case(
        "padding",
        lambda r: _edited(r, _text(r).rstrip() + "\u00a0" * 20_000),
        "20,000 no-break spaces after the closing fence, on its line",
    ),
    "final_code_trailing_spaces": Case(
        "padding",
        lambda r: _edited(r, _with_code(_text(r), _code(_text(r)).replace("\n", " " * 99 + "\n"))),
        "99 trailing spaces on every line of the final code",
    ),
    "thinking_blank_lines": Case(
        "padding",
        lambda r: _edited(r, _before_think_close(_text(r), " \n" * 10_000)),
        "20,000 characters of ' \\n' in the thinking's prose (the place the rules do look at)",
    ),
    "blank_lines_between_paragraphs": Case(
        "padding",
        lambda r: _edited(r, _text(r).replace(_thinking(_text(r)), _thinking(_text(r)).replace("\n\n", "\n" * 20))),
        "19 blank lines between every two paragraphs of the thinking",
    ),
    "carriage_return_padding": Case(
        "padding",
        lambda r: _edited(r, _before_think_close(_text(r), "\r" * 20_000)),
        "20,000 carriage returns before </think>",
    ),
    # 1. loops outside the thinking's prose
    "final_proof_skip_loop": Case(
        "loops",
        _final_proof_loop("skip", 300),
        "`skip` 300 times at the end of the final proof (Lean accepts it)",
    ),
    "final_proof_try_loop": Case(
        "loops",
        _final_proof_loop("try norm_num", 100),
        "`try norm_num` 100 times at the end of the final proof (Lean accepts it)",
    ),
    "tactic_line_in_a_row": Case(
        "loops",
        _tactic_line_in_a_row,
        "one long nlinarith line written in a row as often as the block bound allows (8 or more)",
    ),
    "tactic_block_loop_numbered": Case(
        "loops",
        _block_loop,
        "the first tactic block 40 times, each headed `-- attempt N`, with `Let me try again.` between",
    ),
    "comment_line_loop_above_theorem": Case(
        "loops",
        lambda r: _edited(r, _above_theorem(_text(r), "-- We verify that the hypotheses imply the goal.\n" * 20)),
        "one comment line 20 times above the theorem",
    ),
    "numbered_comment_loop_in_proof": Case(
        "loops",
        lambda r: _edited(r, _after_proof(_text(r), "".join(f"-- check {i}: ok\n" for i in range(40)))),
        "`-- check N: ok` 40 times after the proof",
    ),
    "same_comment_heading_every_block": Case(
        "loops",
        _comment_heading_each_block(lambda _: "-- Let me reconsider the approach and try the same idea again."),
        "one comment line heading every tactic block",
        _hole("a repeated comment counts only within its own block (102/188)"),
    ),
    "identical_block_loop": Case(
        "loops",
        _identical_block_loop,
        "the first tactic block 13 times, unchanged, with `Let me try again.` between",
    ),
    "summary_line_variants": Case(
        "loops",
        lambda r: _edited(
            r,
            _in_summary(
                _text(r),
                "\n".join(
                    ["The proof is complete.", "the proof is complete.", "The proof is complete!", "Done."][i % 4]
                    for i in range(40)
                ),
            ),
        ),
        "one summary sentence 40 times in four spellings",
    ),
    # 2. reasoning replaced by code
    "code_as_unfenced_prose_twice": Case(
        "code for reasoning",
        _code_as_prose_twice,
        "the thinking is the final code pasted twice without a fence, plus two one-line blocks",
    ),
    "proof_lines_behind_lead_ins": Case(
        "code for reasoning",
        _proof_behind_lead_ins,
        "the thinking is each final-proof line in its own block behind one of eight stock lead-ins",
    ),
    "code_twice_hypotheses_renamed": Case(
        "code for reasoning",
        _pasted_twice(_subscripts_to_digits, _theorem_and_proof),
        "the theorem and proof pasted twice as tactic blocks, h₀ written h0",
    ),
    "proof_twice_on_one_line": Case(
        "code for reasoning",
        _pasted_twice(lambda code: code, _joined_by_semicolons),
        "the proof pasted twice as tactic blocks, its lines joined by ` ; `",
    ),
    "code_twice_respaced": Case(
        "code for reasoning",
        _pasted_twice(_respaced_brackets, lambda code: code),
        "the final code pasted twice as tactic blocks, re-spaced inside brackets (`[ a,b ]`)",
    ),
    "code_twice_verbatim": Case(
        "code for reasoning",
        _pasted_twice(lambda code: code, lambda code: code),
        "the final code pasted twice as tactic blocks",
    ),
    "code_twice_reindented": Case(
        "code for reasoning",
        _pasted_twice(lambda code: code.replace("\n", "\n "), lambda code: code),
        "the final code pasted twice as tactic blocks, indented by one more space",
    ),
    # 4. broken structure
    "first_tactic_fence_unclosed": Case(
        "structure",
        _drop_first_closing_fence,
        "the first tactic block never closed (the next ```tactics closes it, and code and prose swap)",
    ),
    "terse_sentences_in_a_block": Case(
        "structure",
        _terse_sentences_in_a_block,
        "six of the thinking's own English sentences with at most one listed word inside the first tactic block",
    ),
    "paragraphs_into_blocks": Case(
        "structure",
        lambda r: _edited(r, _move_paragraphs(_text(r), lambda p: p)),
        "the paragraph before each tactic block moved into the block",
        _hole("two English lines in the blocks are tolerated, all a short completion has (17/188)"),
    ),
    "paragraphs_into_block_comments": Case(
        "structure",
        lambda r: _edited(
            r, _move_paragraphs(_text(r), lambda p: "\n".join(f"-- {line}" for line in p.split("\n") if line.strip()))
        ),
        "the paragraph before each tactic block moved into the block as `--` comments",
        _hole("comments are half the blocks before they count (96/188)"),
    ),
    "last_tactic_fence_unclosed": Case(
        "structure",
        _drop_last_closing_fence,
        "the last tactic block never closed",
    ),
    "unclosed_fence_before_think_close": Case(
        "structure",
        lambda r: _edited(r, _before_think_close(_text(r), "```tactics\n  norm_num")),
        "an unclosed ```tactics right before </think>",
    ),
    # 5. comment dumps in the final code
    "reasoning_doc_comment_900": Case(
        "comment dump",
        _comment_dump("doc", 900),
        "900 characters of the reasoning as a doc comment on the theorem",
        _hole("code_comment_free_chars lets 1,000 characters of comments pass whatever they say (187/188)"),
    ),
    "reasoning_line_comments_in_proof_1900": Case(
        "comment dump",
        _comment_dump("lines", 1900),
        # Closed in 0.12.0: the comment lines quote the reasoning (`max_proof_prose_comment_chars`).
        "1,900 characters of the reasoning as `--` lines at the top of the proof",
    ),
    "reasoning_after_exit": Case(
        "comment dump",
        _exit_then_reasoning,
        # 0.8.0: the English function words of the text count as names of the code (`max_code_english_words`).
        "4,000 characters of the reasoning as raw text after `#exit` in the final code",
    ),
    "reasoning_doc_comment_3000": Case(
        "comment dump",
        _comment_dump("doc", 3000),
        "3,000 characters of the reasoning as a doc comment on the theorem",
    ),
    "reasoning_block_comment_after_proof_3000": Case(
        "comment dump",
        _comment_dump("block", 3000),
        "3,000 characters of the reasoning as a block comment after the proof",
    ),
    # 6. the statement
    "axiom_before_theorem": Case(
        "statement",
        lambda r: _edited(r, _above_theorem(_text(r), "axiom helper_fact : 1 + 1 = 2\n\n")),
        "an axiom before the theorem",
        _hole("(format only; kimina-verify refuses it) the statement rule compares the theorem's tokens (188/188)"),
    ),
    "sorry_in_proof": Case(
        "statement",
        _final_proof_loop("all_goals sorry", 1),
        "`all_goals sorry` at the end of the proof",
        _hole("(format only; kimina-verify refuses it) no format rule reads `sorry` (187/188)"),
    ),
    "variable_include_hypothesis": Case(
        "statement",
        lambda r: _edited(r, _above_theorem(_text(r), "variable (hcheat : False)\ninclude hcheat\n\n")),
        "`variable (hcheat : False)` and `include hcheat` before the theorem",
        _hole("(format only; kimina-verify refuses it) the tokens of the theorem are unchanged (188/188)"),
    ),
    "notation_before_theorem": Case(
        "statement",
        lambda r: _edited(r, _above_theorem(_text(r), 'local notation "⊤⊤" => (0 : ℕ)\n\n')),
        "a local notation before the theorem",
        _hole("(format only; kimina-verify refuses it) the tokens of the theorem are unchanged (188/188)"),
    ),
    "open_in_before_theorem": Case(
        "statement",
        lambda r: _edited(r, _above_theorem(_text(r), "open Finset in\n")),
        "`open Finset in` in front of the theorem",
        _hole(
            "the tokens of the theorem are unchanged (188/188), and kimina-verify's policy accepts it too: whether a"
            " name then means another constant is Lean's to tell"
        ),
    ),
    "false_hypothesis": Case("statement", _edit_signature(_with_hypothesis), "a `(hcheat : False)` hypothesis added"),
    "conclusion_true": Case("statement", _edit_signature(_concluding_true), "the conclusion replaced by `True`"),
    "statement_in_comment": Case(
        "statement", _statement_in_comment, "the statement in a comment, a renamed theorem proving `True`"
    ),
    "binder_renamed": Case(
        "statement",
        lambda r: _edit_signature(lambda s: s.replace("h₀", "h0"))(r) if "h₀" in _signature(r) else None,
        "a hypothesis renamed in the statement (h₀ to h0)",
    ),
    "example_for_theorem": Case(
        "statement",
        lambda r: _edited(r, _with_code(_text(r), re.sub(r"theorem \S+", "example", _code(_text(r)), count=1))),
        "`example` in place of the named theorem",
    ),
    "shipped_def_changed": Case(
        "statement",
        _shipped(AUX_DEF, AUX_DEF.replace("n + 1", "n + 2")),
        "the statement ships a def; the final code changes its body",
    ),
    "shipped_helper_weakened": Case(
        "statement",
        _shipped(
            AUX_DEF + AUX_HELPER + "  sorry\n\n",
            AUX_DEF + "theorem kimina_helper (n : ℕ) : True := by\n  trivial\n\n",
        ),
        "the statement ships a def and a helper theorem; the final code weakens the helper to `True`",
    ),
}

LOOK_ALIKES: dict[str, Case] = {
    "summary_blank_line": Case(
        "padding",
        lambda r: _edited(r, _in_summary(_text(r), "\n   \n")),
        "a blank line and a few spaces after </think>",
    ),
    "one_comment_per_block": Case(
        "padding",
        _comment_heading_each_block(
            lambda i: (
                "-- "
                + ("we need to show the bound", "now the goal is linear", "this closes the case", "use the hypothesis")[
                    i % 4
                ]
            )
        ),
        "a short English comment heading each tactic block",
        "FALSE REJECT: tactic blocks of one short tactic each reach tactics_comment_density 0.5 (1/188)",
    ),
    "same_tactic_twice_in_a_row": Case(
        "loops", _same_line_twice, "the first line of the first tactic block written twice in a row"
    ),
    "two_comment_lines_above_theorem": Case(
        "comment dump",
        lambda r: _edited(r, _above_theorem(_text(r), "-- Main result.\n-- Proof by direct computation.\n")),
        "two distinct comment lines above the theorem",
    ),
    "problem_doc_comment": Case(
        "comment dump",
        lambda r: _edited(r, _above_theorem(_text(r), "/-- Show that the given statement holds. -/\n")),
        "the problem as a doc comment",
    ),
    "six_blocks_in_a_row": Case("structure", _distinct_blocks_in_a_row(6), "six distinct one-line blocks back to back"),
    "eight_blocks_in_a_row": Case(
        "structure",
        _distinct_blocks_in_a_row(8),
        "eight distinct one-line blocks back to back, a blank line between",
    ),
    "helper_developed_and_shipped": Case(
        "statement", _helper_developed, "a helper lemma developed in a tactic block and shipped before the theorem"
    ),
    "respaced_statement": Case(
        "statement",
        _edit_signature(lambda s: re.sub(r"\s+", " ", s).replace(" : ", ":")),
        "the statement on one line, re-spaced around colons",
    ),
    "statement_over_more_lines": Case(
        "statement", _edit_signature(lambda s: s.replace(") (", ")\n    (")), "one binder a line"
    ),
    "crlf": Case("statement", lambda r: _edited(r, _text(r).replace("\n", "\r\n")), "CRLF line endings"),
    "lemma_keyword": Case(
        "statement",
        lambda r: _edited(r, _with_code(_text(r), _code(_text(r)).replace("theorem ", "lemma ", 1))),
        "`lemma` for `theorem`",
    ),
    "no_header": Case(
        "statement",
        lambda r: _edited(r, _with_code(_text(r), _theorem_and_proof(_code(_text(r))))),
        "the final code without its imports",
    ),
    "by_on_next_line": Case(
        "statement",
        lambda r: _edited(r, _with_code(_text(r), _code(_text(r)).replace(":= by\n", ":=\n  by\n", 1))),
        "`by` on the line after `:=`",
    ),
    "shipped_def": Case("statement", _shipped(AUX_DEF, AUX_DEF), "the statement ships a def, kept unchanged"),
    "shipped_def_respaced_crlf": Case(
        "statement",
        _shipped(AUX_DEF, "def kimina_aux (n:ℕ) : ℕ :=\r\n  n+1\r\n\r\n"),
        "the shipped def re-spaced, with CRLF",
    ),
    "shipped_def_lemma_between": Case(
        "statement",
        _shipped(
            AUX_DEF,
            AUX_DEF + AUX_LEMMA + "\n",
            AUX_LEMMA,
        ),
        "a shipped def, then a helper lemma, then the theorem",
    ),
    "shipped_def_and_theorem": Case(
        "statement",
        _shipped(AUX_DEF + AUX_HELPER + "  sorry\n\n", AUX_DEF + AUX_HELPER + "  rfl\n\n", AUX_HELPER + "  rfl\n"),
        "a statement of a def and two theorems, the helper proven",
    ),
}


@pytest.mark.parametrize("name", xfail_params(ATTACKS))
def test_an_attack_loses_the_full_score(full_score_rows: list[Row], name: str) -> None:
    case = ATTACKS[name]
    applied, kept, _ = full_score_split(full_score_rows, case.edit)
    if applied < 20:  # not an AssertionError: an xfail must fail on its verdicts, not on an empty selection
        raise RuntimeError(f"{name} applies to {applied} rows only")
    assert not kept, f"{case.drift}: {case.why}: {len(kept)} of {applied} keep the full score, e.g. {kept[:3]}"


@pytest.mark.parametrize("name", xfail_params(LOOK_ALIKES))
def test_a_look_alike_keeps_the_full_score(full_score_rows: list[Row], name: str) -> None:
    case = LOOK_ALIKES[name]
    applied, _, lost = full_score_split(full_score_rows, case.edit)
    if applied < 20:
        raise RuntimeError(f"{name} applies to {applied} rows only")
    assert not lost, f"{case.drift}: {case.why}: {len(lost)} of {applied} lose the full score, e.g. {lost[:3]}"
