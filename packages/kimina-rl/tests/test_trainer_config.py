"""The Dr.GRPO base config composes with verl 0.9.1's Hydra tree and carries the upstream hyperparameters."""

from pathlib import Path

import pytest
from kimina_rl.trainer_config import (
    agent_loop_config_path,
    compose_config,
    config_dir,
    launch_overrides,
)
from omegaconf import DictConfig, OmegaConf


def test_base_has_dr_grpo_keys(base_config: DictConfig) -> None:
    cfg = base_config
    assert cfg.algorithm.adv_estimator == "grpo"
    assert cfg.algorithm.norm_adv_by_std_in_grpo is False
    assert cfg.algorithm.use_kl_in_reward is False
    actor = cfg.actor_rollout_ref.actor
    assert actor.loss_agg_mode == "seq-mean-token-sum-norm"
    assert actor.use_kl_loss is False and actor.kl_loss_coef == 0.0
    assert actor.loss_scale_factor == cfg.data.max_response_length == 24576


def test_base_has_upstream_hyperparameters(base_config: DictConfig) -> None:
    cfg = base_config
    actor, rollout = cfg.actor_rollout_ref.actor, cfg.actor_rollout_ref.rollout
    assert (rollout.n, rollout.temperature, rollout.top_p) == (8, 1.0, 1.0)
    assert (rollout.val_kwargs.n, rollout.val_kwargs.do_sample, rollout.val_kwargs.top_p) == (8, True, 0.95)
    assert actor.optim.lr == pytest.approx(2e-6)
    assert (actor.clip_ratio_low, actor.clip_ratio_high, actor.clip_ratio_c) == (0.2, 0.3, 3.0)
    assert (cfg.data.train_batch_size, actor.ppo_mini_batch_size, actor.ppo_epochs) == (256, 32, 1)
    assert (cfg.data.max_prompt_length, cfg.data.max_response_length) == (8192, 24576)
    # verl derives the rollout lengths from the data section.
    assert (rollout.prompt_length, rollout.response_length) == (8192, 24576)
    assert actor.entropy_coeff == 0.0
    assert cfg.trainer.n_gpus_per_node == 8


def test_reward_uses_the_current_keys_not_the_legacy_ones(base_config: DictConfig) -> None:
    reward = base_config.reward
    assert reward.custom_reward_function.path == "pkg://kimina_rl.reward"
    assert reward.custom_reward_function.name == "compute_score"
    assert reward.reward_manager.name == "naive"
    # main_ppo in verl 0.9.1 ignores the legacy top-level keys: they must stay unset.
    assert base_config.custom_reward_function.path is None
    assert base_config.reward_model.reward_manager is None
    kwargs = OmegaConf.to_container(reward.custom_reward_function.reward_kwargs, resolve=True)
    assert isinstance(kwargs, dict)
    assert kwargs == OmegaConf.to_container(base_config.kimina_rl, resolve=True)


def test_agent_loop_is_registered_and_default(base_config: DictConfig) -> None:
    agent = base_config.actor_rollout_ref.rollout.agent
    assert agent.default_agent_loop == "kimina_fix"
    assert Path(agent.agent_loop_config_path) == agent_loop_config_path()
    entries = OmegaConf.load(agent_loop_config_path())
    assert [entry.name for entry in entries] == ["kimina_fix"]
    assert entries[0]._target_ == "kimina_rl.agent_loop.KiminaFixAgentLoop"
    assert launch_overrides() == [f"actor_rollout_ref.rollout.agent.agent_loop_config_path={agent_loop_config_path()}"]


def test_passes_verl_validation(base_config: DictConfig) -> None:
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import omega_conf_to_dataclass, validate_config

    cfg = base_config.copy()
    # No reference model or critic is built: no KL, no value function.
    assert not need_reference_policy(cfg)
    assert not need_critic(cfg)
    validate_config(cfg, use_reference_policy=False, use_critic=False)
    # The typed configs verl's workers build from these sections.
    actor = omega_conf_to_dataclass(cfg.actor_rollout_ref.actor)
    assert (actor.loss_scale_factor, actor.clip_ratio_high) == (24576, 0.3)
    rollout = omega_conf_to_dataclass(cfg.actor_rollout_ref.rollout)
    assert rollout.agent.default_agent_loop == "kimina_fix"


def test_overrides_flow_through_interpolations() -> None:
    cfg = compose_config(["data.max_response_length=4096", "kimina_rl.fix.max_errors=5"])
    assert cfg.actor_rollout_ref.actor.loss_scale_factor == 4096
    assert cfg.actor_rollout_ref.rollout.response_length == 4096
    assert cfg.reward.custom_reward_function.reward_kwargs.fix.max_errors == 5


def test_recipe_extends_the_base(tmp_path: Path) -> None:
    (tmp_path / "tiny.yaml").write_text(
        "defaults:\n  - kimina_drgrpo\n  - _self_\n"
        "data:\n  train_batch_size: 8\n  max_response_length: 2048\n"
        "actor_rollout_ref:\n  model:\n    path: /models/tiny\n  actor:\n    ppo_mini_batch_size: 8\n"
        "  rollout:\n    agent:\n      default_agent_loop: single_turn_agent\n"
    )
    cfg = compose_config(["trainer.n_gpus_per_node=1"], config_name="tiny", config_dir_path=tmp_path)
    assert cfg.algorithm.norm_adv_by_std_in_grpo is False  # inherited
    assert cfg.actor_rollout_ref.actor.loss_scale_factor == 2048  # follows the recipe
    assert cfg.actor_rollout_ref.model.path == "/models/tiny"
    assert cfg.actor_rollout_ref.rollout.agent.default_agent_loop == "single_turn_agent"
    assert Path(cfg.actor_rollout_ref.rollout.agent.agent_loop_config_path) == agent_loop_config_path()


def test_bad_override_is_a_clear_error() -> None:
    from hydra.errors import ConfigCompositionException

    with pytest.raises(ConfigCompositionException, match="no_such_key"):
        compose_config(["actor_rollout_ref.actor.no_such_key=1"])
    with pytest.raises(FileNotFoundError, match="config folder"):
        compose_config(config_dir_path="/nonexistent/recipes")


def test_config_dir_ships_the_yaml() -> None:
    assert (config_dir() / "kimina_drgrpo.yaml").is_file()
    assert agent_loop_config_path().is_file()
