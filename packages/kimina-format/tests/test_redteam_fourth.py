"""A fourth red team, by a helper who wrote none of the rules, and the rules it called for (kimina-format 0.5.0).

Its attacks edit the real completions that keep the full score the way a drifting policy would: the whole thinking
written twice, a paragraph looped with its sentences shuffled, the final code pasted unfenced in the summary,
`#check` or `import Mathlib` written hundreds of times, a hint list padded or written over and over, `try` or
`trace_state` after every proof line, one English line in every tactic block. Each attack asserts how few rows keep
the full score (none, or the short completions its bound leaves by design, named in the case); each look-alike, the
healthy edit beside it, asserts that every row keeps it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from kimina_format import parse_completion
from kimina_format.testing import (
    final_code_of,
    full_score_split,
    thinking_of,
    with_final_code,
    with_thinking,
)

Row = dict[str, Any]
Edit = Callable[[Row], "Row | None"]


def _edited(row: Row, text: str | None) -> Row | None:
    return None if text is None or text == row["completion"] else {**row, "completion": text}


def _thinking(change: Callable[[str], str | None]) -> Edit:
    def edit(row: Row) -> Row | None:
        new = change(thinking_of(row["completion"]))
        return _edited(row, None if new is None else with_thinking(row["completion"], new))

    return edit


def _code(change: Callable[[str], str | None]) -> Edit:
    def edit(row: Row) -> Row | None:
        new = change(final_code_of(row["completion"]))
        return _edited(row, None if new is None else with_final_code(row["completion"], new))

    return edit


def _summary(summary: Callable[[str], str]) -> Edit:
    def edit(row: Row) -> Row | None:
        text = row["completion"]
        return _edited(row, text.replace("</think>", "</think>\n" + summary(text) + "\n", 1))

    return edit


def _proof_start(code: str) -> int | None:
    found = re.search(r":=\s*by\s*\n", code)
    return found.end() if found else None


def _after_each_proof_line(filler: str) -> Callable[[str], str | None]:
    def change(code: str) -> str | None:
        start = _proof_start(code)
        if start is None:
            return None
        lines = code[start:].split("\n")
        out = []
        for line in lines:
            out.append(line)
            if line.strip() and not line.rstrip().endswith(("by", ":=", "=>", "<;>", ",", "(", "[")):
                out.append(line[: len(line) - len(line.lstrip())] + filler)
        return code[:start] + "\n".join(out)

    return change


def _shuffled_loop(thinking: str) -> str | None:
    """The longest one-line paragraph of four sentences or more, its sentences shuffled, 20 times in a row."""
    paragraphs = [p for p in thinking.split("\n\n") if "\n" not in p.strip() and "```" not in p]
    candidates = [p.strip() for p in paragraphs if len(re.split(r"(?<=[.!?])\s+", p.strip())) >= 4]
    if not candidates:
        return None
    paragraph = max(candidates, key=len)
    sentences = re.split(r"(?<=[.!?])\s+", paragraph)
    rng = random.Random(0)
    copies = []
    for _ in range(20):
        rng.shuffle(sentences)
        copies.append(" ".join(sentences))
    return thinking.replace(paragraph, "\n\n".join(copies), 1)


def _every_paragraph_twice(thinking: str) -> str:
    return "\n\n".join(p + "\n\n" + p if "```" not in p else p for p in thinking.split("\n\n"))


def _header_line(line: str, times: int) -> Callable[[str], str | None]:
    def change(code: str) -> str | None:
        at = code.find("theorem")
        return None if at < 0 else code[:at] + (line + "\n") * times + "\n" + code[at:]

    return change


def _hints(change: Callable[[str], str]) -> Callable[[str], str | None]:
    def edit(code: str) -> str | None:
        found = re.search(r"\b(?:nlinarith|linarith)\s*\[([^\]\n]*)\]", code)
        if found is None:
            return None
        return code[: found.start(1)] + change(found.group(1)) + code[found.end(1) :]

    return edit


def _english_in_every_block(line: str) -> Callable[[str], str | None]:
    def change(thinking: str) -> str | None:
        if "```tactics\n" not in thinking:
            return None
        return re.sub(r"(```tactics\n.*?)(```)", lambda m: m.group(1) + line + "\n" + m.group(2), thinking, flags=re.S)

    return change


def _at_least_tries(row: Row | None, least: int, word: str = "try ") -> Row | None:
    """The edited row when its final code holds `word` `least` times or more (a proof of fewer lines cannot)."""
    return row if row is not None and final_code_of(row["completion"]).count(word) >= least else None


def _last_line_under_try(code: str) -> str | None:
    """The last proof line under `try`, in proofs of three lines or more (`try` is a tactic name to the alignment
    rule: a one-line proof under it shares half its names with the thinking)."""
    start = _proof_start(code)
    lines = code.rstrip().split("\n")
    last = lines[-1]
    if start is None or code[start:].strip().count("\n") < 2 or not last.startswith("  "):
        return None
    if last.strip().startswith(("·", "|", "--")):
        return None
    lines[-1] = last[: len(last) - len(last.lstrip())] + "try " + last.lstrip()
    return "\n".join(lines)


MINIF2F_HEADER = "\n".join(
    [
        *(
            f"import Mathlib.{name}"
            for name in (
                "Algebra.BigOperators.Basic",
                "Data.Real.Basic",
                "Data.Complex.Basic",
                "Data.Nat.Log",
                "Data.Complex.Exponential",
                "NumberTheory.Divisors.Basic",
                "NumberTheory.Basic",
                "Data.ZMod.Defs",
                "Data.ZMod.Basic",
                "Topology.Basic",
            )
        ),
        "import Aesop",
        "set_option maxHeartbeats 400000",
        "open BigOperators Real Nat Topology Rat",
        "open Finset",
    ]
)


def _with_header(header: str) -> Callable[[str], str | None]:
    def change(code: str) -> str | None:
        at = code.find("theorem")
        return None if at < 0 else header + "\n\n" + code[at:]

    return change


def _in_code_and_a_block(line: str) -> Edit:
    """`line` as the final proof's first line and the first tactic block's (so the tactics stay aligned)."""

    def edit(row: Row) -> Row | None:
        text = row["completion"]
        code = final_code_of(text)
        start = _proof_start(code)
        if start is None or "```tactics\n" not in text:
            return None
        text = with_final_code(text, code[:start] + "  " + line + "\n" + code[start:])
        return _edited(row, text.replace("```tactics\n", "```tactics\n" + line + "\n", 1))

    return edit


PASSAGE = (
    "I think the approach is correct, but let me double check the algebra once more before writing the final proof.",
    "Expanding both sides gives the same polynomial, so the identity holds.",
    "Therefore the claim follows from the hypotheses.",
)
SENTENCE = (
    "Let me think about this differently: perhaps there is a simpler way to see why the statement is true, using"
    " the structure of the hypotheses directly."
)


def _spread(pieces: list[str]) -> Callable[[str], str | None]:
    """`pieces` as paragraphs at evenly spaced paragraph breaks of the thinking's prose (outside its blocks)."""

    def change(thinking: str) -> str | None:
        parts = re.split(r"(```.*?```)", thinking, flags=re.S)
        gaps = [
            (i, m.start())
            for i, part in enumerate(parts)
            if not part.startswith("```")
            for m in re.finditer("\n\n", part)
        ]
        if len(gaps) < len(pieces):
            return None
        chosen = [gaps[k * len(gaps) // len(pieces)] for k in range(len(pieces))]
        for (i, at), piece in sorted(zip(chosen, pieces, strict=True), reverse=True):
            parts[i] = parts[i][:at] + "\n\n" + piece + parts[i][at:]
        return "".join(parts)

    return change


def _spread_glued(passage: str, copies: int) -> Callable[[str], str | None]:
    """`passage` glued to the end of evenly spaced prose paragraphs (no blank line before it), `copies` times."""

    def change(thinking: str) -> str | None:
        parts = thinking.split("\n\n")
        prose = [i for i, part in enumerate(parts) if "```" not in part and part.strip()]
        if len(prose) < copies:
            return None
        for k in range(copies):
            i = prose[k * len(prose) // copies]
            parts[i] = parts[i].rstrip() + "\n" + passage
        return "\n\n".join(parts)

    return change


class Case(NamedTuple):
    """One edit of the real completions, the rule it is about, and how many rows may keep the full score."""

    rule: str
    edit: Edit
    most_kept: int = 0
    most_lost: int = 0


ATTACKS: dict[str, Case] = {
    # 6 of 188 thinkings have fewer than 10 distinct long lines: `max_duplicate_line_share` is judged from 10 on.
    "whole_thinking_twice": Case("max_duplicate_line_share", _thinking(lambda t: t + "\n\n" + t), most_kept=6),
    "whole_thinking_three_times_after_a_restart": Case(
        "max_duplicate_line_share",
        _thinking(lambda t: "\n\nWait, let me start over from the beginning.\n\n".join([t] * 3)),
        most_kept=6,
    ),
    "every_paragraph_twice": Case("max_duplicate_line_share", _thinking(_every_paragraph_twice), most_kept=6),
    # 6 of 66: those whose paragraph's copies leave a sentence without its full stop in the middle.
    "paragraph_looped_with_sentences_shuffled": Case("near_duplicates", _thinking(_shuffled_loop), most_kept=6),
    "three_line_passage_five_times_across_the_thinking": Case(
        "max_passage_repeats", _thinking(_spread(["\n".join(PASSAGE)] * 5))
    ),
    "two_line_passage_ten_times_across_the_thinking": Case(
        "max_passage_repeats", _thinking(_spread(["\n".join(PASSAGE[1:])] * 10))
    ),
    "long_sentence_ten_times_across_the_thinking": Case("max_long_line_repeats", _thinking(_spread([SENTENCE] * 10))),
    "final_code_unfenced_in_the_summary": Case(
        "max_summary_code_lines", _summary(lambda text: "The proof:\n\n" + final_code_of(text))
    ),
    "final_code_indented_in_the_summary": Case(
        "max_summary_code_lines",
        _summary(lambda text: "\n".join("    " + line for line in final_code_of(text).split("\n"))),
    ),
    "final_code_in_a_tilde_fence_in_the_summary": Case(
        "max_summary_code_lines", _summary(lambda text: "~~~lean4\n" + final_code_of(text) + "\n~~~")
    ),
    "check_written_300_times": Case(
        "max_code_commands", _code(lambda c: c.rstrip() + "\n" + "\n#check Nat.add_comm" * 300)
    ),
    "distinct_checks_after_the_proof": Case(
        "max_code_commands",
        _code(lambda c: c.rstrip() + "\n" + "".join(f"\n#check Nat.le_refl {k}" for k in range(30))),
    ),
    "import_mathlib_500_times": Case("max_header_repeats", _code(_header_line("import Mathlib", 500))),
    # The fifth red team's bypasses of the rules above.
    "checks_on_one_line": Case(
        "max_code_commands", _code(lambda c: c.rstrip() + "\n\n" + " ".join(["#check Nat.add_comm"] * 300))
    ),
    "distinct_evals_after_the_proof": Case(
        "max_code_commands", _code(lambda c: c.rstrip() + "\n" + "".join(f"\n#eval {k} * {k}" for k in range(300)))
    ),
    "show_underscore_after_every_proof_line": Case("max_filler_tactics", _code(_after_each_proof_line("show _"))),
    "rotate_left_zero_after_every_proof_line": Case(
        "max_filler_tactics", _code(_after_each_proof_line("rotate_left 0"))
    ),
    "trace_message_after_every_proof_line": Case("max_filler_tactics", _code(_after_each_proof_line('trace "ok"'))),
    "repeat_after_every_proof_line_of_long_proofs": Case(
        "max_try_tactics",
        lambda row: _at_least_tries(_code(_after_each_proof_line("repeat norm_num"))(row), 10, "repeat "),
    ),
    "padded_hints_around_a_nested_list": Case(
        "max_hint_items",
        _code(_hints(lambda h: h + ", ([] : List ℕ), " + ", ".join(f"sq_nonneg ({k} : ℝ)" for k in range(150)))),
    ),
    "final_code_as_a_numbered_list_in_the_summary": Case(
        "max_summary_code_lines",
        _summary(
            lambda text: "\n".join(
                f"{k}. {line.strip()}" for k, line in enumerate(final_code_of(text).split("\n"), 1) if line.strip()
            )
        ),
    ),
    "final_code_in_backticks_in_the_summary": Case(
        "max_summary_code_lines",
        _summary(
            lambda text: "\n".join(f"`{line.strip()}`" for line in final_code_of(text).split("\n") if line.strip())
        ),
    ),
    "thinking_end_pasted_in_the_summary": Case(
        "max_summary_thinking_lines",
        _summary(lambda text: "\n\n".join(thinking_of(text).strip().split("\n\n")[-8:])),
        most_kept=40,
    ),
    "passage_glued_to_the_paragraph_before_each_copy": Case(
        "max_passage_repeats", _thinking(_spread_glued("\n".join(PASSAGE[:2]), 6))
    ),
    "hint_list_written_60_times_over": Case("max_duplicate_hints", _code(_hints(lambda h: ", ".join([h] * 60)))),
    "hint_list_padded_with_150_hints": Case(
        "max_hint_items", _code(_hints(lambda h: h + ", " + ", ".join(f"sq_nonneg ({k} : ℝ)" for k in range(150))))
    ),
    "trace_state_after_every_proof_line": Case("max_filler_tactics", _code(_after_each_proof_line("trace_state"))),
    "try_after_every_proof_line_of_long_proofs": Case(
        "max_try_tactics",
        lambda row: _at_least_tries(_code(_after_each_proof_line("try norm_num"))(row), 10),
    ),
    "one_english_line_in_every_tactic_block": Case(
        "max_tactic_prose_lines", _thinking(_english_in_every_block("This should work."))
    ),
}

LOOK_ALIKES: dict[str, Case] = {
    "one_paragraph_checked_again": Case(
        "max_duplicate_line_share",
        _thinking(lambda t: t.replace("\n\n", "\n\n" + t.split("\n\n")[0].strip() + "\n\n", 1)),
    ),
    "a_passage_written_twice_apart": Case("max_passage_repeats", _thinking(_spread(["\n".join(PASSAGE)] * 2))),
    "a_long_sentence_written_six_times_apart": Case("max_long_line_repeats", _thinking(_spread([SENTENCE] * 6))),
    "cases_worked_one_by_one_in_long_lines": Case(
        "max_long_line_repeats",
        _thinking(
            _spread(
                [
                    f"For n = {n}, the remainder of n squared divided by seven is {n * n % 7}, which is not the"
                    " residue required by the statement."
                    for n in range(1, 13)
                ]
            )
        ),
    ),
    "a_two_sentence_summary": Case(
        "max_summary_code_lines",
        _summary(lambda _: "The proof simplifies the hypotheses and closes the goal with arithmetic. Lean accepts it."),
    ),
    "a_summary_quoting_one_proof_line": Case(
        "max_summary_code_lines",
        _summary(
            lambda text: (
                "The last step is:\n\n" + [line for line in final_code_of(text).split("\n") if line.strip()][-1].strip()
            )
        ),
    ),
    "one_check_after_the_proof": Case("max_code_commands", _code(lambda c: c.rstrip() + "\n\n#check Nat.add_comm")),
    # The fifth red team's false rejects, now kept.
    "the_minif2f_lean4_header": Case("max_header_lines", _code(_with_header(MINIF2F_HEADER))),
    "a_list_literal_with_repeated_values": Case(
        "max_duplicate_hints", _in_code_and_a_block("have hd : Nat.digits 10 1111 = [1, 1, 1, 1] := by norm_num")
    ),
    "a_sum_unrolled_by_simp_only": Case(
        "max_duplicate_hints",
        _in_code_and_a_block(
            "have hs : ∑ i in Finset.range 4, i = 6 := by simp only [Finset.sum_range_succ, Finset.sum_range_succ,"
            " Finset.sum_range_succ, Finset.sum_range_succ, Finset.sum_range_zero]"
        ),
    ),
    # A one-tactic proof (mathd_numbertheory_483) shares too few tactic names with a thinking given a new block:
    # upstream's alignment rule, not this one.
    "an_explored_obtain_block_shown_twice": Case(
        "max_tactic_prose_lines",
        _thinking(
            lambda t: t.replace(
                "```tactics\n", "```tactics\nobtain ⟨quotient, remainder⟩ := Nat.exists_eq_add_of_le (le_refl 0)\n", 2
            )
        ),
        most_lost=1,
    ),
    "a_summary_quoting_two_conclusions_of_the_thinking": Case(
        "max_summary_thinking_lines",
        _summary(
            lambda text: (
                "To summarise:\n\n"
                + "\n".join([line for line in parse_completion(text).reasoning.split("\n") if len(line) > 40][-2:])
            )
        ),
    ),
    "an_extra_open_line": Case("max_header_lines", _code(_header_line("open Finset", 1))),
    "three_more_hints": Case(
        "max_hint_items", _code(_hints(lambda h: h + ", sq_nonneg (1 : ℝ), sq_nonneg (2 : ℝ), sq_nonneg (3 : ℝ)"))
    ),
    "the_last_proof_line_under_try": Case("max_try_tactics", _code(_last_line_under_try)),
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_an_attack_loses_the_full_score(full_score_rows: list[Row], name: str) -> None:
    case = ATTACKS[name]
    applied, kept, _ = full_score_split(full_score_rows, case.edit)
    assert applied >= 20, f"{name} applied to only {applied} rows"
    assert len(kept) <= case.most_kept, f"{name} kept the full score on {len(kept)}/{applied}, e.g. {kept[:3]}"


@pytest.mark.parametrize("name", list(LOOK_ALIKES))
def test_a_look_alike_keeps_the_full_score(full_score_rows: list[Row], name: str) -> None:
    case = LOOK_ALIKES[name]
    applied, _, lost = full_score_split(full_score_rows, case.edit)
    assert applied >= 20, f"{name} applied to only {applied} rows"
    assert len(lost) <= case.most_lost, f"{name} lost the full score on {len(lost)}/{applied}, e.g. {lost[:3]}"
