"""Every threshold of the format checker, in one frozen dataclass with defaults chosen on real completions."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_CONFIG", "FormatConfig"]


@dataclass(frozen=True)
class FormatConfig:
    """Thresholds for `check_format`; the README explains how each default was chosen on real Kimina completions.

    Setting a bound to `None` switches that check off (its metric is still reported).

    Attributes:
        code_languages: Fence languages accepted for the final code block (and recognised as Lean elsewhere).
        think_open_optional: Accept a completion that starts inside the thinking, for chat templates that put `<think>`
            at the end of the prompt (the completion then holds only `</think>`).
        repetition_min_chars: A reasoning line counts for repetition only if it has at least this many characters
            after normalisation (case folded, digits and spaces removed); short lines ("Wait.") repeat naturally.
        max_line_repeats: Most times one normalised long line may occur in the prose (the reasoning outside tactic
            blocks, and the summary after the thinking), wherever the copies are.
        max_consecutive_repeats: Most copies in a row of one passage (one or more long prose lines) before it is a
            loop; copies are compared like `max_line_repeats` and then confirmed digit for digit.
        near_duplicate_min_chars: A prose line takes part in the near-duplicate count only if it has at least this
            many characters after normalisation; two such lines are near-duplicates when they share their first or
            their last half that many (normalised) characters, so one local edit leaves a copy a near-duplicate.
        max_near_duplicates: Most near-duplicates one long prose line may have (itself included).
        template_min_chars: A prose line takes part in the template-loop count only if it has at least this many
            characters after normalisation (short lines loop with a counter too: `Try one: check again.`).
        template_band_chars: How many characters of a prose line's opening, ending or middle make a template band:
            a loop's copies keep at least one of them from one copy to the next.
        max_template_repeats: Most copies in a row of one passage of prose lines that differ from the copy before
            only in a word or two, in one place or at both ends (digits kept): a loop told apart by a counter
            (`Attempt one: ...`, `... (try iv)`).
        max_short_consecutive_repeats: Most copies in a row of one passage of prose lines of any length, blank lines
            aside and digits kept: a loop of short lines (`Let me check.`, `Hmm, not quite.`, `Try again.`), which
            `max_consecutive_repeats` (long lines) does not see. Copies that differ only by a counter (`Pass 3.`,
            `(3)` on each line) or by one short line (`Pass three.`) count as copies too, past
            `max_template_repeats`; so do bare lines in a row (`...`, `---`, `1.`), matrix rows with digits aside.
        max_counted_lines: Most prose lines, all together, in runs of more than `max_short_consecutive_repeats`
            lines in a row that are one sentence (24 key bytes or more) differing in one number, wherever it stands
            (`... (i=3).`): ten sentences written 19 times each with a counter are 190 lines of nothing, while an
            enumeration whose cases share a verdict is one run of a dozen or so.
        max_alike_lines: Most prose lines (of at least `template_min_chars`) that are one line with a word or two
            changed, wherever they are: a counter loop broken up by other lines, or two loops interleaved. A copy
            whose numbers change does not count, so an enumeration of one sentence counts once.
        max_reworded_lines: Most long prose lines that are one line with a word or two changed, added, dropped or
            swapped (up to a fifth of its words, four at most but a fifth of a line of 40 words or more, in any mix),
            the changes at places that vary from copy to copy (at least three places over the group): a passage
            written again and again, reworded a little each time, spread out or in a row.
        max_shuffled_copies: Most long prose lines that hold a sentence of a paragraph written again and again in
            other orders, each sentence maybe reworded a little (found at two places or more among each line's
            sentences): a paragraph shuffled copy after copy copies no line. A paragraph looped in one order, and a
            table's rows closed by one refrain, are the line rules' to bound.
        max_reworded_line_share: Most share of the distinct prose lines of 60 key bytes or more that have a copy,
            word for word or changed at one place (a word or two added, dropped or changed), once twelve have one:
            the thinking started over, each line reworded a little, leaves every group of copies small.
        max_medium_line_repeats: Most times one prose line of `template_min_chars` to `repetition_min_chars`
            (by the key of `max_line_repeats`) may occur: such lines are too short for `max_line_repeats` and a
            loop of them (`So x = 0 fails, try the next one.`) should not wait for `max_short_line_repeats`.
            A line counts once less for each tactic block of the thinking it leads into (`In Lean 4, we can write:`).
        max_paraphrased_copies: Most long prose lines that share one middle passage (32 key bytes from the first `e`
            past their 16th): copies of one line with new opening and closing words.
        max_short_line_repeats: Most times one short non-blank prose line (under `repetition_min_chars`, by the
            same key) may occur anywhere: loops of short lines (`Wait.`, `.`, `--`) are loops too.
        max_repeated_remarks: Most occurrences, all together, of the remarks that each occur three times or more: the
            short prose lines of words alone (under `repetition_min_chars` key bytes; markup, CJK and check marks
            too; no formula, value or colon at the end: `Wait.`, `*Hmm, okay.*`, `✓`), the last two lines before each
            tactic block aside, and the short sentences that open a line or close one as a sentence of their own
            (`Hmm, wait. ...`). A remark after every line or two of the thinking, in one wording or a few, stays under
            the per-line bounds.
        max_mid_line_remarks: Most occurrences, all together, of the short sentences (eight words at most, words
            alone) that each occur twice or more in the middle of a prose line, after a sentence and before more
            text: `Wait.` or `Hmm, let me double-check.` after every sentence of a paragraph. Real prose says such a
            sentence twice at most.
        max_opener_share: Most share of the non-blank prose lines that one opener may open or one closer close,
            once it takes 40 lines: a word before a comma, a semicolon, a dash or an ellipsis (`Wait, ...`,
            `Hmm… `), two words (`Okay so ...`), after a bullet or a number too, a question after a comma, a dash or
            a parenthesis (`..., right?`). A verbal tic at the head or the end of every line or two. The cases of an
            enumeration, opened alike and going on alike but for a value (`Let me try n = 3: ...`), count once.
        max_sentence_opener_share: Most share of the prose's sentences inside a line (after a sentence that ends in a
            word) that one tic may open, once it opens 10 different ones: one or two words before a comma, a
            semicolon, a colon, a dash or an ellipsis (`Wait, `), the tic of `max_opener_share` put before every
            sentence instead of every line.
        max_sentence_closer_share: Most share of the prose's sentences that end in a word that one tic may close,
            once it closes 10 different ones (digits aside: cases that share a verdict are one): up to three words
            after a comma, a semicolon, a dash or an ellipsis that follows 16 characters of the sentence (`, I
            think.`, ` — wait.`).
        max_paragraph_repeats: Most times one paragraph may occur in the thinking: a prose paragraph (a stretch
            between blank lines, by the keys of its lines, of at least `repetition_min_chars` bytes), or a fenced
            block of at least 20 characters. A loop of a paragraph of short lines escapes the per-line counts.
        max_long_line_repeats: Most times one prose line of 80 key bytes or more (a sentence, not a formula) may
            occur, digit for digit: a long sentence written again and again across the thinking.
        max_passage_repeats: Most times one prose paragraph of two lines or more (80 key bytes or more), or one
            pair of long prose lines in a row, may occur, digit for digit, wherever its copies are: a passage written
            again and again across the thinking, on its own or glued to the paragraph before each copy.
        max_clause_repeats: Most times one stretch of the prose may occur, read as one stream (whitespace, no-break
            and thin spaces, emphasis marks and counters in brackets deleted, case folded, digits kept, cut into
            clauses at `.?!;:,`): the 120 bytes from a clause's start, unless they hold 14 TeX commands or dollar
            signs (a formula restated). A paragraph looped with its lines broken at new
            places in each copy repeats no line but every stretch of it; an enumeration's cases differ in their
            numbers, so a stretch of one runs into the next case.
        max_duplicate_line_share: Most share of the distinct long prose lines that occur more than once, digit for
            digit (by keys, digits deleted, first; judged from ten such lines on): the whole thinking, or every
            paragraph, written twice repeats all of them; a passage looped four times, a few.
        max_echo_rate: Most share of the long prose lines that echo, judged from four such lines on: a sentence or
            clause (30 bytes or more, case folded, spaces deleted, digits kept) said again at once on its line (the
            same, or with a word or two dropped, added or changed; short units such as `Again:` between the copies
            skipped), or the line or a sentence of it written twice whatever stands between the copies. Every
            sentence said again (`X. X. Y. Y.`, `X. Again: X.`, `X (X)`), or every line doubled behind a space, a `;`,
            a dash or a quote, makes most long lines echo; real reasoning, at most two lines in all.
        max_often_repeated_lines: Most occurrences, all together, of the long prose lines (by the key of
            `max_line_repeats`) that each occur five times or more: a passage written again with its lines
            reordered, or one line in four wordings written ten times each, repeats no paragraph and no line often
            enough for the other bounds.
        max_inline_repeats: Most copies of one phrase within one long prose or summary line (`Wait. Wait. Wait.`,
            one sentence written again and again on one line), by probes taken at its quarter, middle and third
            quarter, digits and spaces kept.
        max_block_loop_repeats: Most copies in a row of one passage of steps of the thinking, a step being a
            tactic or Lean block with the prose before it (by their keys): a guessing loop of one-tactic blocks
            (`Wait, that fails. Let me try:` then `simp`, then `linarith`, ...) repeats no long prose line and no
            block long enough for `max_paragraph_repeats`.
        max_line_chars: Most bytes in the key of one prose line (UTF-8, spaces and digits deleted): a prose line is
            a paragraph, not a dump of words or symbols.
        min_tactic_blocks: Fewest different ```` ```tactics ```` blocks (by their code, comments and whitespace
            aside) the thinking must contain: the final proof pasted twice is one draft.
        min_tactic_block_lines: Fewest non-comment, non-blank lines each tactic block must contain.
        max_tactic_block_lines_floor: A tactic block may always have this many proof lines, however short the proof.
        max_tactic_block_lines_ratio: Beyond the floor, a tactic block may have at most this multiple of the final
            proof body's line count.
        max_padded_tactic_lines: Most tactic-block lines of 256 characters or more that are one short unit written
            again and again (they compress below a tenth of their bytes): `&nbsp;` a hundred times on each of a dozen
            lines is no tactic. A tactic with one list of up to 40 names (a draft's `rw [Finset.sum_range_succ, ...]`
            twenty times) and a line of the final code are none. (`max_code_line_chars` bounds a tactic-block line
            too: `~` 20,000 times.)
        max_tactic_prose_lines: Most tactic-block lines that read as English (outside comments; a line written in
            every block counts every time): two or more English function words that Lean never uses, a sentence (a
            capitalised word and three more, maybe after a Markdown heading, bullet or number), LaTeX (`$` or
            brackets), two words of three letters or more that are no tactic, Lean keyword, hypothesis name or name
            the final code uses (`simplify both sides`, `does linarith work here?`, in any script or in capitals),
            Markdown, or CJK characters.
        max_final_proof_copies: Most tactic blocks of the thinking that hold the whole final proof (of three lines
            or more, spacing, comments and the names of hypotheses aside: `h₀` renamed `hA0` is the same): the proof
            pasted again and again at the end of a real thinking is too small a share of it for
            `max_copied_code_share`.
        max_short_proof_copies: Most tactic blocks of the thinking that hold the whole final proof when it has one
            or two lines (compared as for `max_final_proof_copies`): a real thinking tries such a proof in a few
            blocks, not in a dozen pasted one after another.
        max_copied_code_share: Most share of the thinking's characters that is lines copied from the final code
            (compared and counted with their spacing deleted and subscript digits as digits, cut at `;` and `<;>`).
        max_copied_to_reasoning: Most characters of code copied from the final code into the thinking (as for
            `max_copied_code_share`), as a share of the reasoning's bytes (`min_reasoning_chars`): a proof pasted
            again and again around a stock opening is code in place of reasoning, however short the opening.
        max_prose_code_share: Most share of the prose's bytes (spaces and digits aside) in lines that equal a line
            of the final code, as written, as a list item or inline code, or with a label of up to 16 key bytes
            before or after it (`Then: ...`): the reasoning is words, not the proof pasted without a fence.
        min_reasoning_chars: Fewest bytes of the thinking's prose (spaces, digits and newlines aside), without the short
            line that leads into each block: a thinking that is the code with a line or two around it is not
            reasoning.
        max_code_loop_repeats: Most copies in a row of one passage of proof lines, in a tactic block or the final
            proof (`skip` or `try norm_num` three hundred times is a loop Lean accepts; cases, `· norm_num` after
            `interval_cases`, and tactics that close or split a goal, `positivity` for each goal, are bounded by the
            goals: none in the final proof, in a tactic block as often as the final proof writes them).
        max_comment_repeats: Most times one comment may occur in the final code or in one tactic block, numbers folded
            (`-- check 7: ok`), comments heading a case aside (`-- Case n = 3` before `·`).
        max_proof_comment_density: Most comment share (of non-whitespace characters) in the final proof body.
        max_proof_prose_comment_chars: Most key bytes of the final code's comment lines (24 key bytes or more each;
            doc comments, which state the problem, aside) whose opening or ending is a piece of a prose line: the
            reasoning moved into comments between the tactics or above the theorem, sentence by sentence, measured
            once five lines quote it, one line longer than a label (100 key bytes), or fewer lines of more than 240
            key bytes together.
            Real proofs quote none; the steps of a plan listed in the thinking, used as the proof's labels, are not
            counted.
        max_tactics_comment_density: Most comment share (of non-whitespace characters) over all tactic blocks.
        comment_density_free_chars: Comments totalling at most this many non-whitespace characters never count as
            too dense (one short remark on a one-line proof is fine).
        max_code_comment_chars: Most non-whitespace characters of comments in the whole final code, however long
            the code (the reasoning pasted as a doc comment above a long proof stays under the density bound).
        max_code_comment_density: Most comment share (of non-whitespace characters) in the whole final code: header,
            doc comments and statements included.
        code_comment_free_chars: Comments of the whole final code totalling at most this many non-whitespace
            characters never count as too dense (a doc comment that states the problem is fine).
        max_boilerplate_comments: Most boilerplate comments (empty, no letters, or a repeat of an earlier comment)
            in the final code and tactic blocks together.
        min_tactic_name_iou: Least IoU between the tactic names in the thinking and those in the final proof body.
        min_tactic_name_coverage: Least share of the final proof body's tactic names that the thinking's tactic
            blocks also use.
        max_summary_chars: Most characters (stripped) between `</think>` and the final Lean block.
        max_summary_blocks: Most fenced blocks in the summary between the thinking and the final Lean block: the
            final code pasted there again in a ```` ```tactics ```` or a bare fence is code twice.
        max_summary_code_lines: Most lines of the final code (12 key bytes or more, list markers, quote marks and
            backticks aside) that the summary copies, as lines of their own or within its lines: the code pasted there
            unfenced, indented, as a list, in a `~~~` fence or as inline code is code twice.
        max_summary_thinking_lines: Most lines of the summary (the same way) that are prose lines of the thinking: a
            summary may restate a conclusion or two; the thinking's end pasted again is a copy.
        max_summary_line_repeats: Most times one non-blank line may occur in that summary.
        max_summary_sentence_repeats: Most times one sentence of 16 characters or more (case, spaces, a leading
            label and closing marks aside; more than five sentences one word apart count as one) may occur in that
            summary, on one line or several: a summary restates the result once.
        max_summary_boxed: Most boxed answers (LaTeX `boxed` commands) in that summary.
        max_trailing_whitespace: Most whitespace characters after the final Lean block.
        max_space_run: Most spaces and tabs in a row anywhere in the completion.
        max_blank_lines: Most blank lines in a row anywhere in the completion (a line of spaces or tabs is blank; a
            block cut out of the prose is not).
        max_extra_blank_lines: Most blank lines, over the whole completion, that follow two blank lines (one or two
            blank lines between paragraphs are layout; nineteen between every two is padding).
        max_code_whitespace_share: Most share of the final code's bytes, or of the tactic blocks', that are spaces,
            tabs or newlines (deep indentation reaches a half; spaces after every line are padding).
        max_trailing_space_lines: Most lines, anywhere, that end in four spaces or more or in a tab: padding spread
            over every line stays under the share and run bounds.
        max_whitespace_share: Most share of the completion's characters that are spaces, tabs or newlines.
        max_spaced_gap_chars: Most spaces between the words of lines past the first of each gap (runs of two or more
            inside a line, three or more after a sentence's end; a table's padding, comments or `:=` aligned in code,
            and lines without a word of four letters aside), and past it at most 4% of the completion's characters:
            three spaces between every two words pad a completion by half.
        max_deep_indent_chars: Most spaces of indentation that no nesting needs, summed over all lines: in the prose
            past column 12, in code past 12 columns more than the line a line nests under, unless aligned on it (inside
            its bracket, under its `calc` or `by`, a relation or a comment of it; in the prose too, a derivation's `=`
            under the one above): the thinking shifted right by 20 columns, a proof or a nested block by 40.
        max_indented_prose_lines: Most lines of the prose indented by five columns or more, and past it at most a
            third of the prose's lines: the thinking shifted right by a few columns on every line.
        max_code_indent: Most spaces the least indented line of the final code's indented lines may start with:
            Lean takes a proof indented by 40 as well as by 2.
        max_tab_chars: Most tab characters anywhere (the models write none; in code Lean refuses them).
        max_blank_markup: Most pieces of markup anywhere that render as blank space or as nothing: HTML comments,
            tags and blank entities (`&nbsp;`, `<br>`, `<!-- -->`), Markdown links without text and Markdown comments,
            formulas, code spans and bold of spaces (`$ $`, `****`), empty fenced blocks, and TeX's spaces, line
            breaks and invisible boxes (quad, `~`, newline, hspace, phantom, kern), once for each three in a row or
            one at a formula's edge (one or two between two parts of a formula are its layout, and so is a line
            break ending a display): `&nbsp;` after every line pads it without a whitespace character.
        max_invisible_chars: Most invisible characters anywhere: zero-width and other format characters, non-ASCII
            spaces (no-break, ideographic, ...), control characters, variation selectors, blank Braille, lone
            surrogates, and every character of Unicode's format category or unassigned.
        max_symbol_chars: Most pictographic characters anywhere (emoji, dingbats, private use).
        max_lookalike_chars: Most letters anywhere that read as Latin ones but are other characters: combining and
            enclosing marks (any, not only U+0300 to U+036F), full-width Latin letters and digits, and the letters of
            other scripts and alphabets that look like Latin ones (Cyrillic, Greek, Armenian, IPA, small capitals,
            mathematical alphanumerics such as `𝑎`, ...) written next to a Latin letter. A loop whose copies are
            disguised by such letters at different places in each copy has a key per copy; `𝓝 0`, `𝔼[X]`, accented
            names and a sentence in Greek or Russian are text.
        max_punctuation_run_chars: Most characters of the prose in runs of eight or more of one punctuation mark or
            symbol (any character but a letter, a digit or whitespace), or stretches of twelve or more of them mixed
            (single spaces between them allowed), inside lines of text: `........`, `||||||||`, `[][][][][][]`,
            `. . . . . .` or `。。。。。。。。` in every line pad the length with nothing; a line that is one run alone (a
            rule, a Setext underline, a table's separator row) is layout.
        max_junk_lines: Most prose lines (after the first) that are not words: 40 or more printable ASCII characters
            without a space (base64, ASCII art, dumps), 40 or more of only lowercase letters and spaces, with no
            capital, digit or punctuation (word salad), or 17 or more of only punctuation marks and spaces, or six or
            more of only dashes and box-drawing lines (`──────`).
        max_bare_lines: Most prose lines of punctuation marks and symbols with one letter or digit at most (a rule,
            `...`, `* * *`, `x`; not `So:`, nor a display formula's delimiters), and at most a third of the
            non-blank prose lines past 20: hundreds of rules of random widths, or of single letters, or a rule after
            every line, pad a thinking with nothing, each line its own key.
        max_code_declarations: Most declarations in the final code (the theorem and its helpers).
        max_declaration_copies: Most theorems, lemmas and examples of the final code that state and prove the same
            thing (names aside): the theorem pasted again as ten `example`s is padding Lean accepts.
        max_filler_tactics: Most tactics that do nothing (`skip`, `trace_state`, `trace "..."`, `sleep`, `show _`,
            `rotate_left 0`, `iterate 0 ...`, a `have` of `True`) in the final code and the tactic blocks together:
            Lean accepts `skip` after every line. A step of a `<;>` chain written a seventh time in it (spaces and
            parentheses aside; a chain goes on over a line break before or after a `<;>`, each bracket holds chains of
            its own, and a comma or a semicolon ends one), or past its 16th step, is one too: `<;> norm_num` 300 times
            after a proof runs on no goal.
        max_try_tactics: Most tactics of the final code that may do nothing without failing (`try`, `repeat`,
            `iterate`, `first`): `try norm_num` after every line is padding Lean accepts.
        max_guarded_steps: Most steps of the final code that may never run: what `all_goals`, `any_goals`, `try`,
            `repeat`, `iterate`, `first`, `fail_if_success` and `success_if_fail_with_msg` govern, and what follows a
            `<;>` or a `<|>` (the rest of the line, lines indented under the tactic, lines that go on from it; see
            `kimina_format.metrics._region_end`). A step is a line, a `;`, a `<|>`, an alternative's `|` or a guard
            inside another. Once the last goal is closed, `all_goals` runs its block on none, `linarith <;>` its right
            side on none and `done <|>` never its right side, so Lean accepts a hundred lines of anything that parses
            there. Real Kimina proofs have 12 at most, the 72B model's `imo_1992_p1` 58; its
            `induction_sumkexp3eqsumksq` (65) ends in 25 lines of `<;> native_decide`, `<;> tauto` and `all_goals
            tauto` after its last goal.
        max_header_lines: Most non-blank lines of the final code outside its declarations (imports, options, `open`).
        max_header_repeats: Most times one line may occur there: `import Mathlib` written 500 times is padding.
        max_code_commands: Most `#` commands (`#check`, `#eval`, `#print`, ...) anywhere in the final code, on one
            line or many: `#check` written hundreds of times is padding.
        max_hint_items: Most items in one bracketed list of the final proof (`nlinarith [...]`, `simp [...]`).
        max_duplicate_hints: Most items of one hint list of the final proof (`nlinarith`, `linarith`, `positivity`,
            `polyrith`) that repeat an earlier item of it.
        max_code_literal_chars: Most characters in string and character literals of the final code, and in names
            that hold text (`«...»`, or a name of more than 80 characters).
        max_code_english_words: Most English function words (`the`, `we`, `because`, ...) in the final code and the
            tactic blocks outside their comments, as names or parts of names: the reasoning written as `let` names,
            `universe` or `variable` names, constructors or binders is a comment dump that Lean accepts, and in a
            tactic block, prose disguised as code.
        max_helper_chars: Most non-whitespace characters of the final code other than its header and its theorem
            (the `theorem` or `lemma` named as in the statement, else the last one): the helpers it proves or
            defines first, and whatever follows the theorem's proof.
        max_trailing_declarations: Most declarations in the final code after the proof of its theorem, notations and
            macros included: they cannot serve it, and ten trivial `example`s or `notation`s there pad the code.
        max_code_line_chars: Most non-whitespace characters in one line of the final code, comments aside: one
            `have` of a 9,000-character sum is padding Lean accepts. A tactic block's line is bounded alike,
            as Lean never reads it.
        soft_max_tokens: Length penalty is zero up to this many tokens, then grows linearly.
        max_tokens: Length penalty reaches 1 here; a longer response is a `too_long` violation.
        chars_per_token: Token estimate used when no tokenizer callback is given.
    """

    code_languages: tuple[str, ...] = ("lean4", "lean")
    think_open_optional: bool = False
    repetition_min_chars: int = 40
    max_line_repeats: int | None = 20
    max_consecutive_repeats: int | None = 4
    near_duplicate_min_chars: int = 100
    max_near_duplicates: int | None = 14
    template_min_chars: int = 16
    template_band_chars: int = 12
    max_template_repeats: int | None = 10
    max_short_consecutive_repeats: int | None = 6
    max_counted_lines: int | None = 60
    max_alike_lines: int | None = 24
    max_reworded_lines: int | None = 4
    max_shuffled_copies: int | None = 8
    max_reworded_line_share: float | None = 0.75
    max_medium_line_repeats: int | None = 45
    max_paraphrased_copies: int | None = 100
    max_short_line_repeats: int | None = 250
    max_repeated_remarks: int | None = 60
    max_mid_line_remarks: int | None = 8
    max_opener_share: float | None = 0.25
    max_sentence_opener_share: float | None = 0.3
    max_sentence_closer_share: float | None = 0.1
    max_paragraph_repeats: int | None = 12
    max_often_repeated_lines: int | None = 30
    max_duplicate_line_share: float | None = 0.4
    max_echo_rate: float | None = 0.2
    max_passage_repeats: int | None = 4
    max_clause_repeats: int | None = 8
    max_long_line_repeats: int | None = 8
    max_inline_repeats: int | None = 8
    max_block_loop_repeats: int | None = 6
    max_line_chars: int | None = 3_000
    min_tactic_blocks: int | None = 2
    min_tactic_block_lines: int | None = 1
    max_tactic_block_lines_floor: int = 10
    max_tactic_block_lines_ratio: float | None = 1.5
    max_tactic_prose_lines: int | None = 1
    max_padded_tactic_lines: int | None = 1
    max_final_proof_copies: int | None = 4
    max_short_proof_copies: int | None = 10
    max_copied_code_share: float | None = 0.5
    max_copied_to_reasoning: float | None = 1.25
    max_prose_code_share: float | None = 0.1
    min_reasoning_chars: int | None = 60
    max_code_loop_repeats: int | None = 7
    max_comment_repeats: int | None = 16
    max_proof_comment_density: float | None = 0.75
    max_proof_prose_comment_chars: int | None = 100
    max_tactics_comment_density: float | None = 0.5
    comment_density_free_chars: int = 80
    max_code_comment_chars: int | None = 2_000
    max_code_comment_density: float | None = 0.5
    code_comment_free_chars: int = 1000
    max_boilerplate_comments: int | None = 5
    min_tactic_name_iou: float | None = 0.15
    min_tactic_name_coverage: float | None = 0.5
    max_summary_chars: int | None = 2_000
    max_summary_line_repeats: int | None = 2
    max_summary_sentence_repeats: int | None = 2
    max_summary_code_lines: int | None = 1
    max_summary_thinking_lines: int | None = 4
    max_summary_blocks: int | None = 0
    max_summary_boxed: int | None = 3
    max_trailing_whitespace: int | None = 32
    max_space_run: int | None = 100
    max_blank_lines: int | None = 20
    max_extra_blank_lines: int | None = 40
    max_trailing_space_lines: int | None = 40
    max_whitespace_share: float | None = 0.5
    max_spaced_gap_chars: int | None = 300
    max_deep_indent_chars: int | None = 100
    max_indented_prose_lines: int | None = 20
    max_code_indent: int | None = 8
    max_code_whitespace_share: float | None = 0.7
    max_tab_chars: int | None = 64
    max_blank_markup: int | None = 16
    max_invisible_chars: int | None = 32
    max_symbol_chars: int | None = 400
    max_lookalike_chars: int | None = 32
    max_punctuation_run_chars: int | None = 500
    max_junk_lines: int | None = 20
    max_bare_lines: int | None = 200
    max_code_declarations: int | None = 12
    max_declaration_copies: int | None = 2
    max_filler_tactics: int | None = 0
    max_try_tactics: int | None = 8
    max_guarded_steps: int | None = 64
    max_header_lines: int | None = 30
    max_header_repeats: int | None = 2
    max_code_commands: int | None = 2
    max_hint_items: int | None = 40
    max_duplicate_hints: int | None = 2
    max_code_literal_chars: int | None = 200
    max_code_english_words: int | None = 8
    max_helper_chars: int | None = 8_000
    max_trailing_declarations: int | None = 2
    max_code_line_chars: int | None = 4_000
    soft_max_tokens: int = 20_480
    max_tokens: int | None = 24_576
    chars_per_token: float = 3.2

    def __post_init__(self) -> None:
        if self.max_tokens is not None and self.soft_max_tokens > self.max_tokens:
            raise ValueError(f"soft_max_tokens ({self.soft_max_tokens}) must not exceed max_tokens ({self.max_tokens})")
        if self.chars_per_token <= 0:
            raise ValueError(f"chars_per_token must be positive, got {self.chars_per_token}")
        if self.near_duplicate_min_chars < 2:
            raise ValueError(f"near_duplicate_min_chars must be at least 2, got {self.near_duplicate_min_chars}")
        if self.template_min_chars < 1:
            raise ValueError(f"template_min_chars must be at least 1, got {self.template_min_chars}")
        if self.template_band_chars < 1:
            raise ValueError(f"template_band_chars must be at least 1, got {self.template_band_chars}")
        if not self.code_languages:
            raise ValueError("code_languages must name at least one fence language")


DEFAULT_CONFIG = FormatConfig()
"""The defaults, shared (the config is frozen, so sharing one instance is safe)."""
