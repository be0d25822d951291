"""Launch verl 0.9.1's `main_ppo` as a subprocess on the config written to the run folder, teeing its output."""

from __future__ import annotations

import logging
import os
import secrets
import subprocess
import sys
from pathlib import Path

from kimina_rl.scoring import REWARD_KEY_ENV

from kimina_train.runfolder import VERL_CONFIG, TrainFolder

__all__ = ["run_verl", "verl_command", "verl_env"]

logger = logging.getLogger(__name__)


def verl_command(run: TrainFolder) -> list[str]:
    """The `main_ppo` command line for the config in `run`; it is also what a user can rerun by hand."""
    folder = run.path.absolute()
    return [
        sys.executable,
        "-m",
        "verl.trainer.main_ppo",
        f"--config-path={folder}",
        f"--config-name={Path(VERL_CONFIG).stem}",
        # Hydra's own outputs (its copy of the config, its log) go into the run folder, not ./outputs/DATE.
        f"hydra.run.dir={folder / 'hydra'}",
    ]


def verl_env(run: TrainFolder, ray_address: str | None, *, cpu: bool = False) -> dict[str, str]:
    """The environment of the verl process: ours, unbuffered, with the Ray head when one was given.

    The run's Ray processes get the same logger and platform variables through the config's runtime env. The reward
    seal's key (`KIMINA_REWARD_KEY`, kimina-rl) is made up here once per launch unless the user set one: the local Ray
    cluster that verl starts inherits this environment, so the agent loop's seals hold in the reward workers (each
    process would otherwise make up its own and every trajectory would be scored twice). It goes into no file and no
    log: the runtime env of the config is printed by verl and written into the run folder.
    """
    from kimina_train.prepare import ray_env

    env = dict(os.environ, PYTHONUNBUFFERED="1", **ray_env(run, cpu=cpu))
    if not env.get(REWARD_KEY_ENV):
        env[REWARD_KEY_ENV] = secrets.token_hex(32)
    elif ray_address is None:
        logger.info("reward seals: the key of $%s is kept", REWARD_KEY_ENV)
    env.setdefault("HYDRA_FULL_ERROR", "1")
    if ray_address:
        # verl calls ray.init() with no address, which joins the cluster named here instead of starting one.
        env["RAY_ADDRESS"] = ray_address
        if not os.environ.get(REWARD_KEY_ENV):
            # The cluster's processes have the environment of `ray start`, not ours: they cannot share this key.
            logger.warning(
                "reward seals: set $%s (the same secret) where the Ray cluster starts, or each worker makes up its"
                " own and agent-loop rewards are scored again",
                REWARD_KEY_ENV,
            )
    if cpu and not env.get("CUDA_VISIBLE_DEVICES", "unset"):
        # Ray refuses to start with logical GPUs when it is set but empty ("CUDA_VISIBLE_DEVICES contains []").
        del env["CUDA_VISIBLE_DEVICES"]
    return env


def run_verl(run: TrainFolder, *, ray_address: str | None = None, cpu: bool = False) -> int:
    """Run `main_ppo` on `run`'s config until it ends, echoing its output to the console and to `train.log`.

    Args:
        run: The prepared run folder.
        ray_address: Head of a running Ray cluster, or None for a local one.
        cpu: Train on CPU (`VERL_PLATFORM=cpu` for verl and its Ray processes).

    Returns:
        verl's exit code (0 when training finished).
    """
    command = verl_command(run)
    logger.info("launching: %s", " ".join(command))
    with (
        run.log.open("a", encoding="utf-8") as log,
        subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            env=verl_env(run, ray_address, cpu=cpu),
        ) as proc,
    ):
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                sys.stdout.write(line)
                log.write(line)
                log.flush()  # so that `tail -f train.log` follows the run
        except KeyboardInterrupt:
            # The child got the same Ctrl-C from the terminal; let it stop and save what it can.
            logger.warning("interrupted; waiting for verl to stop")
        return proc.wait()
