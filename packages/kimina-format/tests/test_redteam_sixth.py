"""A sixth red team, by a helper who wrote none of the rules, and the rules it called for (kimina-format 0.6.0).

Its attacks edit the real completions that keep the full score the way a drifting policy would: every sentence
written twice at once, a loop whose copies are disguised (look-alike letters, commas or `**` at other places in
each copy), runs of dots or dashes in every line, and padding after the theorem's proof (a `def` of a long sum, ten
`example`s) or in one proof line. Each attack asserts how few rows keep the full score (the short completions its
bound leaves by design, counted in the case); each look-alike, the healthy edit beside it, that every row keeps it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from kimina_format import check_format
from kimina_format.testing import (
    RedTeamCase as Case,
)
from kimina_format.testing import (
    final_code_of,
    prose_lines,
    red_team_tests,
    thinking_of,
    with_final_code,
    with_thinking,
)

Row = dict[str, Any]
Edit = Callable[[Row], "Row | None"]
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")


def _thinking(change: Callable[[str, Row], str | None]) -> Edit:
    def edit(row: Row) -> Row | None:
        new = change(thinking_of(row["completion"]), row)
        return None if new is None else {**row, "completion": with_thinking(row["completion"], new)}

    return edit


def _code(change: Callable[[str], str | None]) -> Edit:
    def edit(row: Row) -> Row | None:
        new = change(final_code_of(row["completion"]))
        return None if new is None else {**row, "completion": with_final_code(row["completion"], new)}

    return edit


def _prose_lines(change: Callable[[str, int], str]) -> Edit:
    """Each non-blank line of the thinking outside its fences changed by `change(line, k)` (k counts them)."""

    def edit(thinking: str, row: Row) -> str:
        out, fenced, k = [], False, 0
        for line in thinking.split("\n"):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif not fenced and line.strip():
                line, k = change(line, k), k + 1
            out.append(line)
        return "\n".join(out)

    return _thinking(edit)


def _between_paragraphs(rule: Callable[[int], str]) -> Edit:
    def edit(thinking: str, row: Row) -> str:
        out, fenced = [], False
        for k, paragraph in enumerate(thinking.split("\n\n")):
            out.append(paragraph)
            fenced ^= paragraph.count("```") % 2 == 1
            if not fenced and rule(k):
                out.append(rule(k))
        return "\n\n".join(out)

    return _thinking(edit)


def _in_mid_line(filler: Callable[[int], str]) -> Edit:
    def change(line: str, k: int) -> str:
        space = line.find(" ", len(line) // 2)
        return line if len(line) <= 20 or space < 0 else line[:space] + filler(k) + line[space:]

    return _prose_lines(change)


# Loops whose copies are disguised at other places in each copy: a long line of the row, written 20 more times.
_CYRILLIC = dict(zip("aeocpxiysj", "аеосрхіуѕј", strict=True))


def _homoglyphs(line: str, rng: random.Random) -> str:
    return "".join(_CYRILLIC[c] if c in _CYRILLIC and rng.random() < 0.15 else c for c in line)


def _accents(line: str, rng: random.Random) -> str:
    return "".join(c + "\u0301" if c.isalpha() and rng.random() < 0.08 else c for c in line)


def _full_width(line: str, rng: random.Random) -> str:
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in line)
    return " ".join(w if rng.random() < 0.75 else v for w, v in zip(line.split(" "), wide.split(" "), strict=True))


def _math_italic(line: str, rng: random.Random) -> str:
    # Not `h`: U+210E is its italic, outside the block.
    return "".join(
        chr(0x1D44E + ord(c) - 97) if "a" <= c <= "z" and c != "h" and rng.random() < 0.1 else c for c in line
    )


def _alphabet(letters: dict[str, str]) -> Callable[[str, random.Random], str]:
    """A disguise: each letter that has a look-alike in `letters` swapped for it, at a fifth of its places."""

    def disguise(line: str, rng: random.Random) -> str:
        return "".join(letters[c] if c in letters and rng.random() < 0.2 else c for c in line)

    return disguise


_GREEK = _alphabet(dict(zip("vipuxk", "νιρυχκ", strict=True)))
_SMALL_CAPITALS_AND_IPA = _alphabet(dict(zip("agiyourln", "ɑɡɪʏᴏᴜʀʟɴ", strict=True)))
_SUPERSCRIPT_LETTERS = _alphabet(dict(zip("aeotsr", "ᵃᵉᵒᵗˢʳ", strict=True)))
_LETTERLIKE = _alphabet(dict(zip("eghlo", "ℯℊℎℓℴ", strict=True)))
_ARMENIAN = _alphabet(dict(zip("ouhnqg", "օսհոզց", strict=True)))


def _commas(line: str, rng: random.Random) -> str:
    return " ".join(w + rng.choice((",", " -", ";")) if rng.random() < 0.25 else w for w in line.split(" "))


def _curly_marks(line: str, rng: random.Random) -> str:
    return " ".join(w + rng.choice("‚‛·’”‐—…") if rng.random() < 0.25 else w for w in line.split(" "))


# 0.8.0 (a ninth red team): disguises that no listed range held, counted or folded by their Unicode properties.
_EXTENDED_MARKS = "\u1dc8\u1dd3\u20d0\u20d3\u20e1\ufe20\ufe22"
_HIDDEN_CHARS = "\U0001d173\U0001d175\U0001bca0\u0600\u0378\u05c8"
_ACCENTED = dict(a="àáâä", e="èéêë", i="ìíîï", o="òóôö", u="ùúûü")
_VARIANT_MARKS = {".": "。", ",": "，", "'": "ʼ", ":": "：", "(": "（", "=": "＝"}


_STROKED = dict(o="ø", l="ł", d="đ", t="ŧ", a="ⱥ", c="ꞓ")


def _stroked(line: str, rng: random.Random) -> str:
    return "".join(_STROKED[c] if c in _STROKED and rng.random() < 0.25 else c for c in line)


def _spacing_marks(line: str, rng: random.Random) -> str:
    return "".join(c + "\u0903" if c.isalpha() and rng.random() < 0.1 else c for c in line)


def _extended_marks(line: str, rng: random.Random) -> str:
    return "".join(c + rng.choice(_EXTENDED_MARKS) if c.isalpha() and rng.random() < 0.1 else c for c in line)


def _hidden_chars(line: str, rng: random.Random) -> str:
    return "".join(c + rng.choice(_HIDDEN_CHARS) if c.isalpha() and rng.random() < 0.1 else c for c in line)


def _accented(line: str, rng: random.Random) -> str:
    return "".join(rng.choice(_ACCENTED[c]) if c in _ACCENTED and rng.random() < 0.25 else c for c in line)


def _variant_marks(line: str, rng: random.Random) -> str:
    return "".join(_VARIANT_MARKS[c] if c in _VARIANT_MARKS and rng.random() < 0.5 else c for c in line)


def _emphasis(line: str, rng: random.Random) -> str:
    return " ".join(rng.choice(("**{}**", "*{}*", "`{}`")).format(w) if rng.random() < 0.2 else w for w in line.split())


def _disguised_loop(disguise: Callable[[str, random.Random], str], *, in_a_row: bool) -> Edit:
    def edit(thinking: str, row: Row) -> str | None:
        lines = prose_lines(row["completion"], 100, distinct=True)
        if not lines:
            return None
        line, rng = lines[len(lines) // 2], random.Random(row["name"])
        copies = [disguise(line, rng) for _ in range(20)]
        if in_a_row:
            return thinking + "\n\n" + "\n\n".join(copies)
        paragraphs = thinking.split("\n\n")
        step = max(1, len(paragraphs) // 20)
        for k, copy in enumerate(copies):  # every `step` paragraphs, fences or not: a line inside a block is a line
            paragraphs.insert(min(len(paragraphs), (k + 1) * (step + 1)), copy)
        return "\n\n".join(paragraphs)

    return _thinking(edit)


def _code_as_prose(wrap: Callable[[str], str]) -> Edit:
    """The thinking replaced by the final code, each line wrapped as prose (`$...$`, `> ...`), then its own blocks."""

    def edit(thinking: str, row: Row) -> str:
        lines = [wrap(line.strip()) for line in final_code_of(row["completion"]).split("\n") if line.strip()]
        blocks = re.findall(r"```tactics\n.*?\n```", thinking, re.DOTALL)
        return "\n".join(lines) + "\n\n" + "\n\n".join(f"Now in Lean:\n\n{block}" for block in blocks)

    return _thinking(edit)


def _after_the_proof(padding: str) -> Edit:
    return _code(lambda code: code.rstrip() + "\n\n" + padding + "\n")


_RULE_RNG = random.Random(17)
# Lines of 17 to 30 random punctuation marks: each its own key, and too long for a bare line's.
_RANDOM_RULES = ["".join(_RULE_RNG.choices("=^#->.+<|*~", k=_RULE_RNG.randint(17, 30))) for _ in range(400)]


def _before_the_theorem(text: str) -> Edit:
    """`text` and a blank line put before the final code's first `theorem` (rows without one are left out)."""
    return _code(lambda code: None if "theorem " not in code else code.replace("theorem ", text + "\n\ntheorem ", 1))


def _in_the_proof(line: str) -> Edit:
    def change(code: str) -> str | None:
        found = re.search(r":=\s*by\s*\n", code)
        return None if found is None else code[: found.end()] + line + "\n" + code[found.end() :]

    return _code(change)


# The reasoning carried as names (0.8.0): Lean accepts them, and no comment or literal holds the text.
_REASONING_WORDS = (
    "we need to show that the difference between the left hand sides is zero because the terms cancel when we expand"
    " them and so the claim holds since it can be checked directly and there is nothing else that we must prove"
).split()
_REASONING_NAMES = ["_".join(_REASONING_WORDS[i : i + 6]) for i in range(0, len(_REASONING_WORDS), 6)]


_SUM = " + ".join(map(str, range(1, 1500)))


def _each_sentence(copy: Callable[[str], str], between: str = " ") -> Edit:
    """Each sentence of the thinking's prose followed by `copy(sentence)`, `between` the two."""
    return _prose_lines(lambda line, k: " ".join(s + between + copy(s) for s in _SENTENCE_END.split(line)))


def _words_changed(*places: float) -> Callable[[str], str]:
    """A copy of a sentence with its words at `places` (fractions of its length) changed into `thing`."""

    def copy(sentence: str) -> str:
        words = sentence.split()
        for place in places if words else ():
            words[int(place * len(words))] = "thing"
        return " ".join(words)

    return copy


def _parallel(*lines: str) -> Edit:
    return _thinking(lambda t, r: t + "\n\n" + "\n\n".join(lines))


ATTACKS: dict[str, Case] = {
    # Every sentence written twice at once.
    "every_sentence_twice": Case(
        "max_echo_rate", _prose_lines(lambda line, k: " ".join(s + " " + s for s in _SENTENCE_END.split(line)))
    ),
    "every_sentence_twice_unspaced": Case(
        "max_echo_rate", _prose_lines(lambda line, k: "".join(s + s for s in _SENTENCE_END.split(line)))
    ),
    "every_line_twice_after_a_semicolon": Case("max_echo_rate", _prose_lines(lambda line, k: f"{line}; {line}")),
    "every_line_twice_after_a_dash": Case("max_echo_rate", _prose_lines(lambda line, k: f"{line} — {line}")),
    "every_line_twice_after_a_space": Case("max_echo_rate", _prose_lines(lambda line, k: f"{line} {line}")),
    # Whatever stands between a line's two copies: brackets, a bar, curly quotes, a Chinese full stop.
    "every_sentence_twice_in_brackets": Case(
        "max_echo_rate", _prose_lines(lambda line, k: " ".join(f"{s} ({s})" for s in _SENTENCE_END.split(line)))
    ),
    "every_line_twice_after_a_bar": Case("max_echo_rate", _prose_lines(lambda line, k: f"{line} | {line}")),
    "every_line_twice_in_quotes": Case("max_echo_rate", _prose_lines(lambda line, k: f"{line} “{line}”")),
    "every_line_twice_after_a_chinese_full_stop": Case(
        "max_echo_rate", _prose_lines(lambda line, k: f"{line}。{line}")
    ),
    # Each sentence written again with a word in passing between, or with a word or two dropped, added or changed
    # (kimina-format 0.7.0; the seventh red team found them).
    "every_sentence_again_after_a_word": Case("max_echo_rate", _each_sentence(lambda s: s, " Again: ")),
    "every_sentence_again_after_right": Case("max_echo_rate", _each_sentence(lambda s: s, " Right. ")),
    "every_sentence_again_less_its_last_word": Case(
        "max_echo_rate", _each_sentence(lambda s: s.rsplit(" ", 1)[0] + ".")
    ),
    "every_sentence_again_less_its_first_word": Case("max_echo_rate", _each_sentence(lambda s: s.split(" ", 1)[-1])),
    "every_sentence_again_after_a_word_less_its_last_word": Case(
        "max_echo_rate", _each_sentence(lambda s: s.rsplit(" ", 1)[0] + ".", " Again: ")
    ),
    "every_sentence_again_with_a_filler_word": Case(
        "max_echo_rate", _each_sentence(lambda s: s.replace(" ", " indeed ", 1))
    ),
    "every_sentence_again_with_its_middle_word_changed": Case(
        "max_echo_rate",
        _each_sentence(_words_changed(0.5)),
        most_kept=2,  # rows of formula lines, whose changed words hold digits: a fifth of their long lines echo
    ),
    "every_sentence_again_with_a_comma_put_in": Case(
        "max_echo_rate", _each_sentence(lambda s: s.replace(" ", ", ", 1))
    ),
    "every_line_again_after_a_word_less_its_last_word": Case(
        "max_echo_rate", _prose_lines(lambda line, k: line + " Again: " + line.rsplit(" ", 1)[0])
    ),
    "every_sentence_again_with_two_words_changed": Case(
        "max_echo_rate",
        _each_sentence(_words_changed(1 / 3, 2 / 3)),
        xfail="HOLE: a copy changed at two places keeps the score on 98/188 rows (148 before 0.16.0, which reads two "
        "words changed close together as one change, and a number changed into a word as a change): a copy whose "
        "opening and ending are both changed hides from `_doubled`'s probes, and a clause cut by a comma after "
        "a number names the next one as an enumeration's case",
    ),
    "every_sentence_again_after_a_long_remark": Case(
        "max_echo_rate",
        _each_sentence(lambda s: s, " Let me restate this step once more carefully: "),
        most_kept=9,  # rows of short sentences: units under 30 bytes are not compared, and no line is written twice
    ),
    "a_loop_in_cyrillic_look_alikes": Case("max_lookalike_chars", _disguised_loop(_homoglyphs, in_a_row=True)),
    "a_loop_in_cyrillic_look_alikes_spread": Case("max_lookalike_chars", _disguised_loop(_homoglyphs, in_a_row=False)),
    "a_loop_with_combining_accents": Case("max_lookalike_chars", _disguised_loop(_accents, in_a_row=False)),
    "a_loop_with_full_width_words": Case("max_lookalike_chars", _disguised_loop(_full_width, in_a_row=True)),
    # Other alphabets: a few rows keep a line whose letters have few look-alikes in the alphabet used.
    "a_loop_in_greek_look_alikes": Case("max_lookalike_chars", _disguised_loop(_GREEK, in_a_row=False), 4),
    "a_loop_in_small_capitals_and_ipa": Case(
        "max_lookalike_chars", _disguised_loop(_SMALL_CAPITALS_AND_IPA, in_a_row=False)
    ),
    "a_loop_in_superscript_letters": Case(
        "max_lookalike_chars", _disguised_loop(_SUPERSCRIPT_LETTERS, in_a_row=False), 1
    ),
    "a_loop_in_letterlike_symbols": Case("max_lookalike_chars", _disguised_loop(_LETTERLIKE, in_a_row=False)),
    "a_loop_in_armenian_look_alikes": Case("max_lookalike_chars", _disguised_loop(_ARMENIAN, in_a_row=False)),
    "a_loop_with_math_italic_letters": Case("max_lookalike_chars", _disguised_loop(_math_italic, in_a_row=False)),
    # Lines of 80 key bytes or more without their punctuation are compared without it. The rows left pick a formula
    # line (`$\frac{-18 \pm \sqrt{...}}{2}$`, `$\sum_{k=1}^{49} u_{2k}$`) with fewer letters than that; such lines stay
    # with `max_line_repeats`, whose keys keep punctuation.
    "a_loop_with_commas_and_dashes": Case("max_long_line_repeats", _disguised_loop(_commas, in_a_row=True)),
    "a_loop_with_commas_and_dashes_spread": Case("max_long_line_repeats", _disguised_loop(_commas, in_a_row=False)),
    "a_loop_with_curly_marks_and_dashes": Case("max_long_line_repeats", _disguised_loop(_curly_marks, in_a_row=False)),
    "a_loop_in_extended_combining_marks": Case("max_lookalike_chars", _disguised_loop(_extended_marks, in_a_row=True)),
    "a_loop_in_format_and_unassigned_characters": Case(
        "max_invisible_chars", _disguised_loop(_hidden_chars, in_a_row=True)
    ),
    "a_loop_in_stroked_letters": Case("max_near_duplicates", _disguised_loop(_stroked, in_a_row=True), 2),
    "a_loop_in_spacing_marks": Case("max_lookalike_chars", _disguised_loop(_spacing_marks, in_a_row=True)),
    "a_loop_in_accented_letters": Case("max_near_duplicates", _disguised_loop(_accented, in_a_row=True), 2),
    "a_loop_in_accented_letters_spread": Case("max_near_duplicates", _disguised_loop(_accented, in_a_row=False), 2),
    "a_loop_in_punctuation_variants": Case("max_near_duplicates", _disguised_loop(_variant_marks, in_a_row=True), 2),
    "an_egyptian_format_character_after_every_space": Case(
        "max_invisible_chars", _prose_lines(lambda line, k: line.replace(" ", " \U00013430"))
    ),
    "a_loop_with_emphasis": Case("max_long_line_repeats", _disguised_loop(_emphasis, in_a_row=False), 3),
    "forty_dots_in_every_line": Case(
        "max_punctuation_run_chars", _in_mid_line(lambda k: " " + "." * (40 + k % 9) + " ")
    ),
    "forty_ellipses_in_every_line": Case(
        "max_punctuation_run_chars", _in_mid_line(lambda k: " " + "…" * (40 + k % 9) + " ")
    ),
    "forty_box_drawing_dashes_in_every_line": Case(
        "max_punctuation_run_chars", _in_mid_line(lambda k: " " + "─" * (40 + k % 9) + " ")
    ),
    "ninety_dashes_in_every_line": Case("max_punctuation_run_chars", _in_mid_line(lambda k: " " + "-" * (90 + k % 9))),
    # 0.8.0: any marks or symbols, mixed, single spaces between them allowed (0.7.0 kept 151 to 171 of 188 rows).
    **{
        f"forty_{name}_in_every_line": Case(
            "max_punctuation_run_chars", _in_mid_line(lambda k, unit=unit: " " + unit * (40 + k % 9) + " ")
        )
        for name, unit in {
            "vertical_bars": "|",
            "bracket_pairs": "[]",
            "backslashes": "\\",
            "dollars": "$",
            "spaced_dots": ". ",
            "spaced_arrows": "→ ",
            "chinese_full_stops": "。",
            "mixed_box_drawing": "─═",
        }.items()
    },
    # 0.8.0: bare lines, each its own key (0.7.0 kept 102 to 188 of 188 rows).
    "eight_hundred_rules_of_random_widths": Case(
        "max_bare_lines",
        _thinking(
            lambda t, r: t + "\n" + "\n".join(random.Random(k).choice("-=*~_#") * (3 + k * 7 % 13) for k in range(800))
        ),
    ),
    "eight_hundred_single_letters": Case(
        "max_bare_lines", _thinking(lambda t, r: t + "\n" + "\n".join(chr(97 + k * 7 % 26) for k in range(800)))
    ),
    "four_hundred_long_rules_of_random_marks": Case(
        "max_junk_lines", _thinking(lambda t, r: t + "\n" + "\n".join(_RANDOM_RULES))
    ),
    "a_box_drawing_rule_after_every_line": Case(
        "max_junk_lines", _prose_lines(lambda line, k: line + "\n" + "─" * (6 + k * 7 % 30)), 5
    ),
    "a_spaced_rule_after_every_line": Case(
        "max_bare_lines", _prose_lines(lambda line, k: line + "\n" + " ".join("-" * (3 + k % 4))), 3
    ),
    "a_rule_after_every_line": Case(
        "max_bare_lines", _prose_lines(lambda line, k: line + "\n" + "-" * (3 + k * 5 % 13)), 3
    ),
    # 0.8.0: the code copied into the thinking as formulas or quotes (0.7.0 kept 135 and 136 of 188 rows).
    "the_thinking_is_the_code_as_formulas": Case("max_copied_code_share", _code_as_prose(lambda line: f"${line}$")),
    "the_thinking_is_the_code_as_a_quote": Case("max_copied_code_share", _code_as_prose(lambda line: f"> {line}")),
    "the_reasoning_as_let_names_in_capitals": Case(
        "max_code_english_words", _in_the_proof("\n".join(f"  let {name.upper()} := 0" for name in _REASONING_NAMES))
    ),
    "the_reasoning_as_let_names": Case(
        "max_code_english_words", _in_the_proof("\n".join(f"  let {name} := 0" for name in _REASONING_NAMES))
    ),
    "the_reasoning_as_universe_names": Case(
        "max_code_english_words",
        _before_the_theorem(
            f"universe {' '.join(f'{w}_{i}' for i, w in enumerate(_REASONING_WORDS))}",
        ),
    ),
    "the_reasoning_as_names_in_each_tactic_block": Case(
        "max_code_english_words",
        _thinking(lambda t, r: t.replace("```tactics\n", "```tactics\n" + " ".join(_REASONING_NAMES) + "\n")),
    ),
    "the_reasoning_in_camel_case_in_each_tactic_block": Case(
        "max_code_english_words",
        _thinking(
            lambda t, r: t.replace(
                "```tactics\n",
                "```tactics\n" + " ".join(name.title().replace("_", "") for name in _REASONING_NAMES) + "\n",
            )
        ),
    ),
    "a_long_def_after_the_proof": Case("max_helper_chars", _after_the_proof(f"def pad : ℕ := {_SUM}")),
    # 0.8.0: notations and macros after the proof count as declarations after it (0.7.0 kept all 188 rows).
    # (and behind a modifier or an option: 0.8.0 after the tenth red team).
    **{
        f"ten_{name}_after_the_proof": Case(
            "max_trailing_declarations", _after_the_proof("\n".join(line.format(k=k) for k in range(10)))
        )
        for name, line in {
            "notations": 'notation "pad{k}" => ({k} : ℕ)',
            "macros": 'macro "pad{k}" : term => `(({k} : ℕ))',
            "local_notations": 'local notation "pad{k}" => ({k} : ℕ)',
            "notations_behind_options": 'set_option hygiene false in notation "pad{k}" => ({k} : ℕ)',
        }.items()
    },
    "ten_examples_after_the_proof": Case(
        "max_trailing_declarations",
        _after_the_proof("\n\n".join(f"example : ({k} : ℕ) + 1 = {k + 1} := by norm_num" for k in range(10))),
    ),
    # A `lemma` written last is not the theorem: the one named as in the statement is.
    "ten_examples_after_the_proof_then_a_lemma": Case(
        "max_trailing_declarations",
        _after_the_proof(
            "\n\n".join(f"example : ({k} : ℕ) + 1 = {k + 1} := by norm_num" for k in range(10))
            + "\n\nlemma pad_end : (1 : ℕ) = 1 := rfl"
        ),
    ),
    "a_have_of_a_long_sum": Case(
        "max_code_line_chars", _in_the_proof(f"  have pad : ({_SUM} : ℕ) = {sum(range(1500))} := by norm_num")
    ),
}

LOOK_ALIKES: dict[str, Case] = {
    "a_conclusion_stressed_once": Case(
        "max_echo_rate", _thinking(lambda t, r: t + "\n\nSo the inequality holds for every x. So the inequality holds.")
    ),
    "verdicts_on_one_line": Case(
        "max_echo_rate",
        _thinking(
            lambda t, r: (
                t
                + "\n\n"
                + " ".join(
                    f"For x = {v}, x^2 + 1 = {v * v + 1}, which is not a multiple of seven at all." for v in range(9)
                )
            )
        ),
    ),
    # Parallel cases, a word changed from one sentence to the next (kimina-format 0.7.0).
    "five_parallel_cases_on_one_line": Case(
        "max_echo_rate",
        _parallel(
            " ".join(
                f"The {n} factor is positive on this whole interval."
                for n in ("first", "second", "third", "fourth", "fifth")
            )
        ),
    ),
    "two_lines_of_three_parallel_cases": Case(
        "max_echo_rate",
        _parallel(
            " ".join(f"The {n} factor is positive on this whole interval." for n in ("first", "second", "third")),
            " ".join(f"So the {n} root lies strictly inside the unit circle." for n in ("first", "second", "third")),
        ),
    ),
    "a_paragraph_in_russian": Case(
        "max_lookalike_chars",
        _thinking(
            lambda t, r: (
                "Сначала разберём условие задачи: из гипотез получаем оценку для x, затем применяем"
                " неравенство о среднем. Для x = 1 и y = 2 это проверяется напрямую.\n\n" + t
            )
        ),
    ),
    "greek_letters_in_formulas": Case(
        "max_lookalike_chars",
        _thinking(
            lambda t, r: (
                "Let α, β ∈ ℝ with α + β = π, so sin α = sin β and Σ aᵢ ≤ Π (1 + aᵢ); Δ ≥ 0, θ ∈ [0, 2π).\n\n" + t
            )
        ),
    ),
    "accented_names_and_vietnamese": Case(
        "max_lookalike_chars",
        _thinking(
            lambda t, r: (
                "By Bézout's identity and the Erdős–Ginzburg–Ziv theorem (see Poincaré, Schrödinger), "
                "the bound holds; ρ(x) ≤ 1 and xⁿ ≥ 0. Ta xét hàm số f(x) trên đoạn [0, 1], rồi dùng bất đẳng thức.\n\n"
                + t
            )
        ),
    ),
    "chinese_with_full_width_punctuation": Case(
        "max_lookalike_chars",
        _thinking(lambda t, r: "我们先分析条件（两个不等式），然后证明：x ≥ 0！这样就完成了。\n\n" + t),
    ),
    "a_markdown_table_and_rules": Case(
        "max_punctuation_run_chars",
        _thinking(
            lambda t, r: (
                "| n | n^2 | n^2 mod 7 |\n|---|-----|-----------|\n"
                + "\n".join(f"| {n} | {n * n} | {n * n % 7} |" for n in range(1, 8))
                + "\n\n---\n\n"
                + t
                + "\n\n---"
            )
        ),
    ),
    "towers_spaced_ellipses_and_separator_rows": Case(
        "max_punctuation_run_chars",
        _thinking(
            lambda t, r: (
                "| case | value |\n| :--- | ---: |\n| n = 2 | 4 |\n\n* * *\n\n"
                + t
                + "\n\nThe tower 2^{2^{2^{2^{2^{2^{2^{2}}}}}}}} is huge, ((1 + 2) + ...) ... and so on; "
                "`<;> (try simp) <;> linarith` closes it.\n\n— — —"
            )
        ),
    ),
    "an_ellipsis_and_arrows": Case(
        "max_punctuation_run_chars",
        _thinking(lambda t, r: t + "\n\nSo 1 + 2 + ... + n = n(n+1)/2 --> the sum is even... and `<;>` closes it."),
    ),
    "a_notation_and_a_macro_after_the_proof": Case(
        "max_trailing_declarations",
        _after_the_proof('notation "‖" x "‖" => abs x\n\nmacro "solve" : tactic => `(tactic| norm_num)'),
    ),
    "vectors_french_and_chinese": Case(
        "max_lookalike_chars",
        _thinking(
            lambda t, r: (
                "For vectors v⃗ and w⃗, |v⃗ + w⃗| ≤ |v⃗| + |w⃗|. Énoncé : soit f une fonction définie sur ℝ, à valeurs "
                "réelles, déjà étudiée ; on démontre d'abord qu'elle est bornée, puis qu'elle atteint son élément "
                "maximal. Première étape : la dérivée s'annule en un unique point. Deuxième étape : ce point est "
                "le maximum. 我们先分析条件。然后，证明不等式、最后完成证明。\n\n" + t
            )
        ),
    ),
    "display_formulas_rules_and_short_lines": Case(
        "max_bare_lines",
        _between_paragraphs(
            lambda k: (
                f"So:\n$$\nx^2 + {k} = {k + 4}\n$$\nThen:\n\\[\nx = 2\n\\]\n\n---" if k % 3 == 2 and k < 24 else ""
            )
        ),
    ),
    "helpers_with_and_and_then": Case(
        "max_code_english_words",
        _before_the_theorem(
            "def pick (b : Bool) : ℕ := if b then 1 else 0\n\n"
            "lemma and_helper (p q : Prop) (hp : p) (hq : q) : p ∧ q := And.intro hp hq",
        ),
    ),
    "vectors_and_conjugates": Case(
        "max_lookalike_chars",
        _thinking(
            lambda t, r: (
                "\n".join(
                    f"u⃗ = ({k}, 2), v⃗ = (3, -{k}), w⃗ = u⃗ + v⃗, so |w⃗| ≤ |u⃗| + |v⃗|; z̄ = x - iy and x̂ = x / |x|."
                    for k in range(8)
                )
                + "\n\n"
                + t
            )
        ),
    ),
    "so_before_each_formula_line": Case(
        "max_bare_lines",
        _thinking(
            lambda t, r: (
                "\n".join(f"So:\n$a_{{{k}}} = 2a_{{{k - 1}}} + 1 = {2**k - 1}$" for k in range(1, 31)) + "\n\n" + t
            )
        ),
    ),
    "two_examples_after_the_proof": Case(
        "max_trailing_declarations",
        _after_the_proof("example : (2 : ℕ) + 2 = 4 := by norm_num\n\nexample : (3 : ℕ) * 3 = 9 := by norm_num"),
    ),
    "wide_tables_rules_and_setext_headings": Case(
        "max_punctuation_run_chars",
        _between_paragraphs(
            lambda k: (
                ("| n | n^2 |\n|--------------|--------------|\n| 2 | 4 |", "Step 2\n----------", "=" * 80)[k]
                if k < 3
                else ("......" if k % 5 == 0 else "")
            )
        ),
    ),
    "box_drawing_rules_and_chinese_ellipses": Case(
        "max_punctuation_run_chars",
        _between_paragraphs(lambda k: ("═" * 60, "他想了想……然后继续。", "─" * 40)[k] if k < 3 else ""),
    ),
    "mathlib_script_letters_and_greek": Case(
        "max_lookalike_chars",
        _thinking(
            lambda t, r: (
                "As x → ∞ the sequence tends to 𝓝 0, so `Tendsto f atTop (𝓝 0)` holds.\n"
                "The indicator 𝟙 of the event has 𝔼[𝟙] = ℙ(A), and for 𝑥 + 𝑦 ≥ 0 we take 𝕜 = ℝ.\n"
                "Ο λόγος είναι απλός: η συνάρτηση είναι κυρτή, άρα το ελάχιστο είναι στο άκρο.\n\n" + t
            )
        ),
    ),
    "sign_variants_in_prose": Case(
        "max_long_line_repeats",
        _thinking(
            lambda t, r: (
                t
                + "\n\n"
                + "\n".join(
                    f"Attempt: `nlinarith [sq_nonneg (a {x} b), sq_nonneg (b {y} c), sq_nonneg (c {z} a), mul_pos ha hb]`."
                    for x in "+-"
                    for y in "+-"
                    for z in "+-"
                )
                + "\n"
                + "\n".join(
                    f"Case a {x} 0, b {y} 0: the product ab has a known sign, so the bound holds."
                    for x in "<>="
                    for y in "<>="
                )
            )
        ),
    ),
    "a_helper_lemma_before_the_theorem": Case(
        "max_helper_chars",
        _before_the_theorem(
            "lemma helper_sq (a : ℝ) : 0 ≤ (a - 1) ^ 2 := by\n  nlinarith [sq_nonneg (a - 1)]",
        ),
        most_lost=1,  # one row's alignment rule sees `nlinarith` in the code and not in its thinking
    ),
    "a_have_of_a_sum_of_150_terms": Case(
        "max_code_line_chars",
        _in_the_proof(f"  have h150 : ({' + '.join(map(str, range(1, 151)))} : ℕ) = 11325 := by norm_num"),
        most_lost=14,  # rows whose thinking names no `norm_num`: the alignment rule
    ),
}


test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)


def test_names_of_terms_and_lean_words_are_no_english_words(full_score_rows: list[Row]) -> None:
    # A hypothesis about a term `a_n` or `b_e` is `h_an` or `hBe`; `this`, `then`, `And`, `CanLift`, `IsLeast` and
    # `toReal` are Lean's and Mathlib's. None is an English word carried as a name (`max_code_english_words`).
    lines = "\n".join(
        f"  have h_an{k} : a {k} ≤ b {k} := hab {k}\n  have hBe{k} : IsLeast S {k} ∧ True := And.intro (h {k}) trivial"
        for k in range(5)
    )
    counted = []
    for row in full_score_rows:
        edited = _in_the_proof(lines + "\n  exact if this then CanLift.prf else (toReal x).le")(row)
        if edited is not None:
            verdict = check_format(edited["completion"], formal_statement=edited["formal_statement"])
            counted.append(verdict.metrics.code_english_words)
    assert len(counted) >= 150
    assert max(counted) == 0
