"""Export step: the canonical table as verl's RL parquet (`data_source`, `prompt`, `ability`, `reward_model`, `extra_info`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from kimina_data.prover_prompt import prover_messages

if TYPE_CHECKING:
    import datasets

ABILITY = "theorem_proving"
VERL_COLUMNS = ("data_source", "prompt", "ability", "reward_model", "extra_info")

Split = Literal["train", "val", "valid", "test"]
"""`extra_info.split`: `train` for training rows; kimina-rl keeps rollouts of the others out of its win-rate history."""


def verl_features() -> datasets.Features:
    """Column types of the exported parquet; fixed so that an all-null field keeps its type."""
    import datasets

    string = datasets.Value("string")
    return datasets.Features(
        {
            "data_source": string,
            "prompt": datasets.List({"role": string, "content": string}),
            "ability": string,
            "reward_model": {"style": string, "ground_truth": string},
            "extra_info": {
                "index": datasets.Value("int64"),
                "uid": string,
                "header": string,
                "formal_statement": string,
                "informal_problem": string,
                "source": string,
                "win_rate": datasets.Value("float64"),
                "variant_of": string,
                "split": string,
            },
        }
    )


def to_verl(table: datasets.Dataset, *, split: Split) -> datasets.Dataset:
    """Map a normalised canonical table to verl rows.

    `prompt` is the Kimina-Prover-RL chat (system + user) showing the informal problem and the statement with its
    header. `reward_model.ground_truth` is that same Lean text, header included, as kimina-verify's `VerifyItem`
    wants it: the header fixes the context (`open Real`, ...) the statement means something in. `extra_info` keeps
    the header and the bare statement apart, the informal problem, the source, the win rate, the origin of a
    variant, `index` (the row's position in the file) and `split`.

    Args:
        table: A normalised canonical table.
        split: The side every row is on, written to `extra_info.split`: `train` for the training file, `val` for
            the promptset's held-out problems, `valid` / `test` for the miniF2F splits.

    Raises:
        ValueError: `split` is not one of `Split`.
    """
    if split not in get_args(Split):
        raise ValueError(f"split must be one of {', '.join(get_args(Split))}; got {split!r}")

    def batch(rows: dict[str, list[Any]], indices: list[int]) -> dict[str, list[Any]]:
        full = [h + s for h, s in zip(rows["header"], rows["formal_statement"], strict=True)]
        return {
            "data_source": rows["data_source"],
            "prompt": [
                prover_messages(text, informal, template="rl")
                for text, informal in zip(full, rows["informal_problem"], strict=True)
            ],
            "ability": [ABILITY] * len(indices),
            "reward_model": [{"style": "rule", "ground_truth": text} for text in full],
            "extra_info": [
                {
                    "index": index,
                    "uid": rows["uid"][k],
                    "header": rows["header"][k],
                    "formal_statement": rows["formal_statement"][k],
                    "informal_problem": rows["informal_problem"][k],
                    "source": rows["source"][k],
                    "win_rate": rows["win_rate"][k],
                    "variant_of": rows["variant_of"][k],
                    "split": split,
                }
                for k, index in enumerate(indices)
            ],
        }

    return table.map(
        batch,
        batched=True,
        with_indices=True,
        remove_columns=table.column_names,
        features=verl_features(),
        keep_in_memory=True,
        desc="export",
    )


def write_parquet(table: datasets.Dataset, path: Path) -> Path:
    """Write `table` to `path` atomically: a crash leaves the old file or none, never half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    table.to_parquet(str(partial))
    os.replace(partial, path)
    return path
