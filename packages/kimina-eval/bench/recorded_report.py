"""Render a kimina-eval report from real recorded Lean verdicts (data/recorded_verdicts.jsonl).

The file holds, per miniF2F-test problem and prover, the first passing and the first failing attempt that a
published evaluation kept: a selection, not n independent samples, so pass@1 here is not the provers' pass@1. It is
real data through the real report path (families, intervals, table, figure, summary.json).

    .venv/bin/python packages/kimina-eval/bench/recorded_report.py /tmp/recorded-report
"""

import json
import sys
import time
from pathlib import Path

from kimina_eval.config import RunConfig, save_config
from kimina_eval.report import write_report
from kimina_eval.store import SampleRecord, SampleWriter
from kimina_eval.summary import summarize
from kimina_format.testing import data_file
from kimina_verify.attempts import FIRST_TURN

MODELS = ["AI-MO/Kimina-Prover-Preview-Distill-7B", "Goedel-LM/Goedel-Prover-SFT", "deepseek-ai/DeepSeek-Prover-V2-7B"]


def main(out: Path) -> None:
    rows = [json.loads(line) for line in data_file("recorded_verdicts.jsonl").open()]
    started = time.perf_counter()
    summaries = []
    for model in MODELS:
        folder = out / model.replace("/", "__")
        mine = [r for r in rows if r["model"] == model]
        save_config(folder, RunConfig(model=model, n=1, engine="openai"))
        (folder / "samples.jsonl").unlink(missing_ok=True)
        seen: dict[str, int] = {}
        with SampleWriter(folder / "samples.jsonl") as writer:
            for r in mine:
                sample = seen[r["name"]] = seen.get(r["name"], -1) + 1
                verdict = "valid" if r["verdict"] else "lean_error"
                writer.write(
                    [SampleRecord(r["name"], sample, FIRST_TURN, r["verdict"], verdict, "", code=r["full_code"])]
                )
        summaries.append(summarize(folder))
    files = write_report(summaries, out)
    print(files.markdown.read_text())
    print(f"report {files.markdown}\nsummary {files.summary}\nfigure {files.figure}")
    print(
        f"{sum(s.scores.samples for s in summaries)} recorded verdicts scored in {time.perf_counter() - started:.2f} s"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "recorded-report"))
