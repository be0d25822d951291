"""Test-time RL for kimina-eval's lemma search: a short GRPO run of the `ttrl` recipe on one problem's family.

``kimina-eval search --ttrl kimina_train.ttrl:trainer`` builds a `TTRLTrainer` with `trainer`. After each round that
did not solve a problem, the search calls it with the round's `TTRLBatch`. The trainer writes the batch as verl
parquet, runs ``kimina-train --recipe ttrl`` on it (preflight, verifier canary and verl's ``main_ppo``, as for any
recipe), starting from the model the round sampled from, and returns the Hugging Face weights that run saved. The
search samples the problem's next round from them.

The training prompts are the problem's family: each distinct prompt the round verified an answer to (the theorem,
with the lemmas proved so far in its context, and the open lemmas), exactly as the search asked it, plus one prompt
per lemma proved in an earlier round. The proved lemmas are what give GRPO a signal: the theorem itself has no
verified answer yet, so all of its rollouts may score 0. Negation prompts are left out, since a refuted lemma's
negation says nothing about the theorem. The rows are repeated to fill whole batches.
"""

from __future__ import annotations

import logging
import math
import os
import re
import shlex
import subprocess
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from kimina_data.steps.export import ABILITY, verl_features, write_parquet
from kimina_eval.search.ttrl import TTRLBatch, TTRLSetup
from kimina_format.prompts import TemplateName, build_messages
from kimina_verify import VerifierOptions
from kimina_verify.config import dump_config

__all__ = [
    "Launcher",
    "TRAINED_KINDS",
    "TTRLError",
    "TTRLTrainer",
    "trained_model",
    "trainer",
    "training_rows",
    "verifier_overrides",
    "write_rows",
]

logger = logging.getLogger(__name__)

Launcher = Callable[[list[str], Path, Mapping[str, str]], int]
"""Runs a command in an environment, its output going to a log file; returns its exit code."""

TRAINED_KINDS = ("attempt", "lemma")
"""The sample kinds whose prompts are trained on."""


class TTRLError(RuntimeError):
    """A test-time RL run failed or left no model to load; the message says where its log is."""


def _run_logged(command: list[str], log: Path, env: Mapping[str, str]) -> int:
    """Run ``command`` with ``env`` until it ends, its output appended to ``log``; returns its exit code."""
    with log.open("a", encoding="utf-8") as out:
        return subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=env, check=False).returncode


@dataclass(frozen=True, init=False)
class TTRLTrainer:
    """The test-time RL hook: writes a round's batch as verl data, trains on it, and returns the trained model.

    Args:
        out_dir: Where each round's run folder goes: ``out_dir / PROBLEM / round-N`` (data, config, logs, weights).
        verifier: The search's verifier options, passed whole (`kimina_eval.search.TTRLSetup.verifier`): the rewards
            use the same server (its URL as resolved, on the command line), the same API key (as
            ``$LEAN_SERVER_API_KEY``, never on a command line) and whatever else the search changed from
            kimina-verify's defaults (Lean timeout, checks, cache, ``lean_env``) as ``kimina_rl.verifier.*``
            overrides; see `verifier_overrides`. None: kimina-verify's defaults.
        recipe: The recipe to run: a name in ``apps/train/recipes/`` or a YAML file.
        steps: Training steps per round.
        batch_size: Prompts per step (``data.train_batch_size``); each gets the recipe's ``rollout.n`` rollouts.
        model: The model to train from, for an engine that cannot say it (``openai``); None trains from the model
            the round sampled from.
        overrides: More Hydra overrides of the recipe (``trainer.n_gpus_per_node=4``...).
        dry_run: Write the data and compose the run (``kimina-train --dry-run --show-config``: the plan and the
            resolved config go to the round's log), but train nothing.
        launch: Runs the ``kimina-train`` command; replaced in tests.
        lean_url: Deprecated (kimina-train 0.4): ``verifier=VerifierOptions(Endpoint(url))``.
        lean_api_key: Deprecated (kimina-train 0.4): ``verifier=VerifierOptions(Endpoint(url, key))``.
    """

    out_dir: Path
    verifier: VerifierOptions
    recipe: str
    steps: int
    batch_size: int
    model: str | None
    overrides: tuple[str, ...]
    dry_run: bool
    launch: Launcher = field(repr=False)

    def __init__(
        self,
        out_dir: Path,
        verifier: VerifierOptions | None = None,
        *,
        recipe: str = "ttrl",
        steps: int = 4,
        batch_size: int = 8,
        model: str | None = None,
        overrides: tuple[str, ...] = (),
        dry_run: bool = False,
        launch: Launcher = _run_logged,
        lean_url: str | None = None,
        lean_api_key: str | None = None,
    ) -> None:
        given: object = verifier
        if isinstance(given, str):  # kimina-train 0.4's second positional argument was the URL
            verifier, lean_url = None, given
        options = verifier if verifier is not None else VerifierOptions()
        if lean_url is not None or lean_api_key is not None:
            warnings.warn(
                "TTRLTrainer(lean_url=..., lean_api_key=...) is deprecated: pass "
                "verifier=VerifierOptions(Endpoint(url, api_key)), e.g. the search's TTRLSetup.verifier",
                DeprecationWarning,
                stacklevel=2,
            )
            options = options.with_endpoint(lean_url, lean_api_key)
        if steps < 1 or batch_size < 1:
            raise ValueError(f"steps and batch_size must be >= 1, got {steps} and {batch_size}")
        for name, value in [
            ("out_dir", out_dir),
            ("verifier", options),
            ("recipe", recipe),
            ("steps", steps),
            ("batch_size", batch_size),
            ("model", model),
            ("overrides", tuple(overrides)),
            ("dry_run", dry_run),
            ("launch", launch),
        ]:
            object.__setattr__(self, name, value)

    @property
    def lean_url(self) -> str:
        """The verification server's URL as resolved (kept for callers of kimina-train 0.4's ``lean_url``)."""
        return self.verifier.endpoint.resolved_url()

    @property
    def lean_api_key(self) -> str | None:
        """Its API key as given, or None (kept for callers of kimina-train 0.4's ``lean_api_key``)."""
        return self.verifier.endpoint.api_key

    def __call__(self, batch: TTRLBatch) -> str | None:
        """Train on ``batch``; returns the trained model's directory, or None after a dry run.

        Raises:
            TTRLError: When the run fails or saves no Hugging Face weights.
        """
        folder = self.out_dir / _safe_name(batch.problem) / f"round-{batch.round}"
        rows = training_rows(batch)
        data = write_rows(rows, self.batch_size, folder / "data" / "train.parquet")
        command = self.command(batch, folder, len(rows))
        (folder / "command.sh").write_text(shlex.join(command) + "\n", encoding="utf-8")
        log = folder / "ttrl.log"
        logger.info("%s round %d: %d prompts in %s, log in %s", batch.problem, batch.round, len(rows), data, log)
        dry_run = ["--dry-run", "--show-config"] if self.dry_run else []
        code = self.launch([*command, *dry_run], log, self.environment())
        if code != 0:
            raise TTRLError(f"kimina-train exited with code {code} for {batch.problem} round {batch.round}; see {log}")
        return None if self.dry_run else str(trained_model(folder / "checkpoints"))

    def command(self, batch: TTRLBatch, folder: Path, rows: int) -> list[str]:
        """The ``kimina-train`` command line that trains on the batch written to ``folder``."""
        batches_per_epoch = math.ceil(rows / self.batch_size)
        overrides = [
            f"actor_rollout_ref.model.path={_hydra_value(self.model or batch.model)}",
            f"data.train_batch_size={self.batch_size}",
            f"actor_rollout_ref.actor.ppo_mini_batch_size={self.batch_size}",
            f"trainer.total_training_steps={self.steps}",
            f"trainer.total_epochs={math.ceil(self.steps / batches_per_epoch)}",
        ]
        overrides += verifier_overrides(self.verifier)
        gpus = _visible_gpus()
        if gpus and not any(o.startswith("trainer.n_gpus_per_node=") for o in self.overrides):
            overrides.append(f"trainer.n_gpus_per_node={gpus}")
        run = [sys.executable, "-m", "kimina_train", "--recipe", self.recipe, "--run-dir", str(folder.absolute())]
        return [*run, *overrides, *self.overrides]

    def environment(self) -> dict[str, str]:
        """The environment of the training run: ours, with the verification server's API key when one was given."""
        env = dict(os.environ)
        if self.verifier.endpoint.api_key:
            env["LEAN_SERVER_API_KEY"] = self.verifier.endpoint.api_key
        return env


# Left to the training run: its client's throughput and retries (the RL scorer owns its retry budget), and the key,
# which goes in the environment.
_OWN_VERIFIER_KEYS = ("endpoint.api_key", "endpoint.url", "limits.", "retries.")


def verifier_overrides(verifier: VerifierOptions) -> list[str]:
    """The ``kimina_rl.verifier.*`` Hydra overrides that make a training run's rewards verify as the search does.

    Always the server's URL as resolved (so ``command.sh`` names it); then every plain setting the search changed
    from kimina-verify's defaults (``timeouts.lean_s``, ``checks.print_axioms``, ``cache``, ``lean_env``...), except
    the client's limits and retries (the training run's own) and the API key (passed in the environment). The
    integrity policy's lists are not passed: a run with another policy sets them in its recipe.

    Example:
        >>> from kimina_verify import Endpoint, Timeouts
        >>> verifier_overrides(VerifierOptions(Endpoint("http://lean:8000", "key"), Timeouts(lean_s=120)))
        ['kimina_rl.verifier.endpoint.url=http://lean:8000', 'kimina_rl.verifier.timeouts.lean_s=120.0']
    """
    url = _hydra_value(verifier.endpoint.resolved_url())
    overrides = [f"kimina_rl.verifier.endpoint.url={url}"]
    defaults = _leaves(dump_config(VerifierOptions()))
    for key, value in _leaves(dump_config(verifier)).items():
        if value != defaults.get(key) and not key.startswith(_OWN_VERIFIER_KEYS) and not isinstance(value, list):
            overrides.append(f"kimina_rl.verifier.{key}={_hydra_scalar(value)}")
    return overrides


def _leaves(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A nested mapping as ``{"a.b": leaf}``."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping):
            out.update(_leaves(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _hydra_scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return _hydra_value(str(value))


def training_rows(batch: TTRLBatch) -> list[dict[str, Any]]:
    """The batch as verl rows (kimina-data's layout): the distinct prompts trained on, each with its statement.

    ``extra_info.win_rate`` is the share of the round's answers to that prompt that Lean verified (null for a lemma
    proved in an earlier round, which the round did not sample).
    """
    grouped: dict[str, tuple[Any, str, list[float]]] = {}
    for sample in batch.samples:
        if sample.kind in TRAINED_KINDS:
            key = repr(sample.prompt)
            grouped.setdefault(key, (sample.prompt, sample.formal_statement, []))[2].append(sample.reward)
    template = cast(TemplateName, batch.template)  # build_messages rejects an unknown one
    prompts: list[tuple[Any, str, float | None]] = [(p, s, sum(r) / len(r)) for p, s, r in grouped.values()]
    for lemma in batch.lemmas:
        statement = batch.header + lemma.formal_statement
        prompt = build_messages(statement, template=template)
        if repr(prompt) not in grouped:
            prompts.append((prompt, statement, None))
    return [
        _row(batch, index, prompt, statement, win_rate) for index, (prompt, statement, win_rate) in enumerate(prompts)
    ]


def _row(batch: TTRLBatch, index: int, prompt: Any, statement: str, win_rate: float | None) -> dict[str, Any]:
    is_theorem = statement == batch.formal_statement
    bare = statement.removeprefix(batch.header)
    return {
        "data_source": "ttrl",
        "prompt": prompt,
        "ability": ABILITY,
        "reward_model": {"style": "rule", "ground_truth": statement},
        "extra_info": {
            "index": index,
            "uid": f"{batch.problem}/round-{batch.round}/{index}",
            "header": batch.header,
            "formal_statement": bare,
            "informal_problem": batch.informal if is_theorem else None,
            "source": "ttrl",
            "win_rate": win_rate,
            "variant_of": None if is_theorem else batch.problem,
            "split": "train",
        },
    }


def write_rows(rows: list[dict[str, Any]], batch_size: int, path: Path) -> Path:
    """Write ``rows`` as verl parquet, repeated in order up to a whole number of batches, atomically.

    Raises:
        TTRLError: When there is no row (a round with no verified prompt and no proved lemma).
    """
    import datasets

    if not rows:
        raise TTRLError("the round has no prompt to train on: no graded attempt or lemma and no proved lemma")
    total = math.ceil(len(rows) / batch_size) * batch_size
    filled = [rows[i % len(rows)] for i in range(total)]
    return write_parquet(datasets.Dataset.from_list(filled, features=verl_features()), path)


def trained_model(checkpoints: Path) -> Path:
    """The Hugging Face weights of the latest verl checkpoint under ``checkpoints``.

    verl writes ``global_step_N/actor/huggingface/`` (with ``hf_model`` in the actor's ``checkpoint.save_contents``,
    as the ``ttrl`` recipe sets) and the latest N to ``latest_checkpointed_iteration.txt``.

    Raises:
        TTRLError: When there is no checkpoint, or it holds no weights.
    """
    tracker = checkpoints / "latest_checkpointed_iteration.txt"
    try:
        step = int(tracker.read_text(encoding="utf-8").strip())
    except (OSError, ValueError) as error:
        raise TTRLError(f"the training run left no checkpoint to load ({tracker}: {error})") from None
    model = checkpoints / f"global_step_{step}" / "actor" / "huggingface"
    if not (model / "config.json").is_file() or not any(model.glob("*.safetensors")):
        raise TTRLError(f"{model} holds no Hugging Face weights: does the recipe save hf_model?")
    return model


def trainer(setup: TTRLSetup) -> TTRLTrainer:
    """Build the hook from ``kimina-eval search``'s setup and its ``--ttrl-option KEY=VALUE`` pairs.

    Options: ``recipe``, ``steps``, ``batch_size``, ``model``, ``dry_run`` (true/false); a key with a dot is a Hydra
    override of the recipe (``trainer.n_gpus_per_node=4``). Runs go under ``OUT/ttrl/``.

    Raises:
        ValueError: On an unknown option or a bad value, or an ``openai`` engine without ``model``.
    """
    options = dict(setup.options)
    overrides = tuple(f"{key}={value}" for key, value in options.items() if "." in key)
    settings = _settings({key: value for key, value in options.items() if "." not in key})
    if setup.engine == "openai" and "model" not in settings:
        raise ValueError(
            "an openai engine samples from a server, so test-time RL cannot tell which weights to train: pass "
            "--ttrl-option model=DIR (the weights the server serves); the server keeps serving them"
        )
    return TTRLTrainer(setup.out_dir / "ttrl", setup.verifier, overrides=overrides, **settings)


def _settings(options: Mapping[str, str]) -> dict[str, Any]:
    parsers: dict[str, Callable[[str], Any]] = {
        "recipe": str,
        "model": str,
        "steps": int,
        "batch_size": int,
        "dry_run": _boolean,
    }
    unknown = sorted(set(options) - set(parsers))
    if unknown:
        known = ", ".join(parsers)
        raise ValueError(f"unknown test-time RL option(s) {', '.join(unknown)} (known: {known}, or a Hydra key.path)")
    try:
        return {key: parsers[key](value) for key, value in options.items()}
    except ValueError as error:
        raise ValueError(f"bad test-time RL option: {error}") from None


def _boolean(text: str) -> bool:
    if text.lower() in ("1", "true", "yes"):
        return True
    if text.lower() in ("0", "false", "no"):
        return False
    raise ValueError(f"expected true or false, got {text!r}")


def _safe_name(name: str) -> str:
    """A problem name as a folder name: path separators and other odd characters become ``_``."""
    return re.sub(r"[^\w.-]", "_", name).lstrip(".") or "_"


def _hydra_value(text: str) -> str:
    """``text`` as a Hydra override value: as is when plain, else single-quoted."""
    if re.fullmatch(r"[\w./:@+-]+", text):
        return text
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _visible_gpus() -> int:
    """CUDA GPUs this process sees (the run trains on all of them), or 0."""
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0
