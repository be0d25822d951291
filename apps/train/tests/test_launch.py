"""What the launch hands to verl: the config file main_ppo reads, its command line, and the run's log."""

import sys
from pathlib import Path

import pytest
from kimina_train import launch
from kimina_train.prepare import launch_config
from kimina_train.recipe import Recipe
from kimina_train.runfolder import TrainFolder, write_verl_config


def test_launch_config_pins_paths_and_the_verifier(
    recipe_17b: Recipe, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEAN_SERVER_API_URL", "http://verifier.internal:8000")
    cfg = launch_config(recipe_17b, TrainFolder(tmp_path))
    assert "kimina" not in cfg
    repo = Path.cwd()
    assert cfg.data.train_files == str(repo / "runs/data/kimina-promptset/train.parquet")
    assert cfg.trainer.default_local_dir == str(repo / "runs/kimina-rl-1.7b/checkpoints")
    # The reward's kwargs are a resolved copy of `kimina_rl`: the pinned URL must be in both.
    assert cfg.kimina_rl.verifier.endpoint.url == "http://verifier.internal:8000"
    assert cfg.reward.custom_reward_function.reward_kwargs.verifier.endpoint.url == "http://verifier.internal:8000"
    assert cfg.ray_kwargs.ray_init.runtime_env.env_vars.TENSORBOARD_DIR == str(tmp_path.absolute() / "tensorboard")
    assert cfg.ray_kwargs.ray_init.runtime_env.env_vars.VERL_FILE_LOGGER_PATH == str(
        tmp_path.absolute() / "metrics.jsonl"
    )
    assert cfg.actor_rollout_ref.model.path == "AI-MO/Kimina-Prover-Distill-1.7B"  # a hub id stays a hub id


def test_main_ppo_reads_the_written_config_as_it_was_composed(recipe_17b: Recipe, tmp_path: Path) -> None:
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf
    from verl.utils.config import validate_config

    run = TrainFolder(tmp_path)
    cfg = launch_config(recipe_17b, run)
    write_verl_config(run, cfg)
    command = launch.verl_command(run)
    assert command[1:3] == ["-m", "verl.trainer.main_ppo"]
    assert f"--config-path={tmp_path.absolute()}" in command and "--config-name=verl_config" in command
    # What hydra.main in main_ppo does with --config-path/--config-name.
    with initialize_config_dir(config_dir=str(tmp_path.absolute()), version_base=None):
        loaded = compose(config_name="verl_config")
    assert OmegaConf.to_container(loaded) == OmegaConf.to_container(cfg, resolve=True)
    validate_config(config=loaded, use_reference_policy=False, use_critic=False)


def test_run_verl_tees_output_and_returns_the_exit_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = TrainFolder(tmp_path).create()
    fake = [sys.executable, "-c", "import os; print('step 1', os.environ['RAY_ADDRESS']); raise SystemExit(3)"]
    monkeypatch.setattr(launch, "verl_command", lambda _: fake)
    assert launch.run_verl(run, ray_address="10.0.0.1:6379") == 3
    assert "step 1 10.0.0.1:6379" in run.log.read_text()


@pytest.mark.parametrize("cpu", [False, True])
def test_app_overrides_reach_the_run_folders_config_through_every_copy(tmp_path: Path, cpu: bool) -> None:
    """What verl reads is resolved after the overrides, so keys derived from an overridden one follow it."""
    from kimina_train.recipe import load_recipe
    from omegaconf import OmegaConf

    overrides = ["data.max_response_length=3000", "kimina_rl.verifier.endpoint.url=http://lean.example:8000"]
    recipe = load_recipe("smoke", [*overrides, f"kimina.run_dir={tmp_path}"], cpu=cpu)
    run = TrainFolder(tmp_path)
    write_verl_config(run, launch_config(recipe, run))
    written = OmegaConf.load(run.verl_config)
    assert written.actor_rollout_ref.rollout.response_length == 3000
    assert written.actor_rollout_ref.actor.loss_scale_factor == 3000
    assert written.reward.custom_reward_function.reward_kwargs.verifier.endpoint.url == "http://lean.example:8000"
    assert written.kimina_rl.verifier.endpoint.url == "http://lean.example:8000"


def test_a_cpu_launch_selects_verls_cpu_platform_in_every_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kimina_train.recipe import load_recipe

    run = TrainFolder(tmp_path)
    cpu = launch_config(load_recipe("smoke", [f"kimina.run_dir={tmp_path}"], cpu=True), run)
    env = cpu.ray_kwargs.ray_init.runtime_env.env_vars
    assert env.VERL_PLATFORM == "cpu" and env.VERL_FILE_LOGGER_PATH == str(run.metrics.absolute())
    gpu = launch_config(load_recipe("smoke", [f"kimina.run_dir={tmp_path}"]), run)
    assert "VERL_PLATFORM" not in gpu.ray_kwargs.ray_init.runtime_env.env_vars
    # The driver too; and Ray refuses logical GPUs while CUDA_VISIBLE_DEVICES is set but empty.
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert "CUDA_VISIBLE_DEVICES" not in launch.verl_env(run, None, cpu=True)
    assert launch.verl_env(run, None, cpu=True)["VERL_PLATFORM"] == "cpu"
    assert launch.verl_env(run, None)["CUDA_VISIBLE_DEVICES"] == ""  # a GPU launch leaves it as the user set it
    assert "VERL_PLATFORM" not in launch.verl_env(run, None)


def test_every_ray_process_of_a_launch_shares_one_reward_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # kimina-rl seals agent-loop rewards with $KIMINA_REWARD_KEY; a process without it makes up its own, and then
    # every seal fails in the reward workers. The verl process (whose local Ray cluster inherits its environment)
    # gets one random key per launch, unless the user set one; the key is in no file and no log line.
    from kimina_rl.scoring import REWARD_KEY_ENV
    from kimina_train.recipe import load_recipe

    monkeypatch.delenv(REWARD_KEY_ENV, raising=False)
    run = TrainFolder(tmp_path)
    first, second = launch.verl_env(run, None)[REWARD_KEY_ENV], launch.verl_env(run, None)[REWARD_KEY_ENV]
    assert len(first) == 64 and int(first, 16) >= 0 and first != second  # random, from `secrets`, per launch
    monkeypatch.setenv(REWARD_KEY_ENV, "the-users-own-key")
    assert launch.verl_env(run, None)[REWARD_KEY_ENV] == "the-users-own-key"
    cfg = launch_config(load_recipe("smoke", [f"kimina.run_dir={tmp_path}"], cpu=True), run)
    assert REWARD_KEY_ENV not in cfg.ray_kwargs.ray_init.runtime_env.env_vars  # verl prints that, and it is a file
    write_verl_config(run, cfg)
    assert "the-users-own-key" not in run.verl_config.read_text(encoding="utf-8")
    with caplog.at_level("DEBUG"):
        launch.verl_env(run, "ray://head:10001")
    assert "the-users-own-key" not in caplog.text
    monkeypatch.delenv(REWARD_KEY_ENV)
    caplog.clear()
    with caplog.at_level("WARNING"):
        key = launch.verl_env(run, "ray://head:10001")[REWARD_KEY_ENV]
    assert REWARD_KEY_ENV in caplog.text and key not in caplog.text  # a named cluster needs the user's key


def test_a_data_build_that_fails_is_one_clear_error(tmp_path: Path) -> None:
    from kimina_train.dataprep import DataBuildError, build_missing
    from kimina_train.recipe import load_recipe

    empty = tmp_path / "minif2f.jsonl"
    empty.write_text("\n")
    recipe = load_recipe("smoke", [f"kimina.run_dir={tmp_path}/run", f"kimina.data.minif2f.source={empty}"])
    with pytest.raises(DataBuildError, match=r"^kimina-data could not build the data: .*no rows"):
        build_missing(recipe)


def test_prepare_writes_a_config_that_verl_accepts_and_builds_what_is_missing(
    tmp_path: Path,
) -> None:
    import json

    from kimina_train.preflight import CheckResult, Status
    from kimina_train.prepare import prepare
    from kimina_train.recipe import load_recipe
    from omegaconf import OmegaConf

    recipe = load_recipe(
        "smoke", [f"kimina.run_dir={tmp_path}/run", "kimina_rl.verifier.endpoint.url=http://127.0.0.1:1"]
    )
    run = prepare(recipe, [CheckResult("gpus", Status.SKIP, "none")])
    assert (tmp_path / "run" / "data" / "minif2f_test.parquet").is_file()
    assert (tmp_path / "run" / "data" / "train.parquet").is_file()  # the rows with reference completions
    assert (tmp_path / "run" / "tiny-model" / "config.json").is_file()
    written = OmegaConf.load(run.verl_config)
    assert written.actor_rollout_ref.model.path == str(tmp_path / "run" / "tiny-model")
    assert written.reward.custom_reward_function.reward_kwargs.verifier.endpoint.url == "http://127.0.0.1:1"
    assert json.loads(run.preflight.read_text()) == [{"name": "gpus", "status": "skip", "detail": "none", "fix": None}]
