from pathlib import Path

import pytest
from kimina_train.recipe import Recipe, RecipeError, list_recipes, load_recipe

RECIPES = ["kimina-rl-0.6b", "kimina-rl-1.7b", "smoke", "ttrl"]


def test_the_recipes_exist() -> None:
    assert list_recipes() == RECIPES


@pytest.mark.parametrize("name", RECIPES)
def test_every_recipe_composes_into_a_dr_grpo_config_verl_accepts(name: str) -> None:
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import validate_config

    recipe = load_recipe(name)
    cfg = recipe.verl_config
    assert "kimina" not in cfg  # the app's section never reaches verl
    # Dr.GRPO: the four settings, the constant normaliser, no KL and therefore no reference model or critic.
    assert cfg.algorithm.adv_estimator == "grpo"
    assert cfg.algorithm.norm_adv_by_std_in_grpo is False
    assert cfg.actor_rollout_ref.actor.loss_agg_mode == "seq-mean-token-sum-norm"
    assert cfg.actor_rollout_ref.actor.loss_scale_factor == cfg.data.max_response_length
    assert cfg.actor_rollout_ref.actor.use_kl_loss is False
    assert not need_reference_policy(cfg) and not need_critic(cfg)
    # The Lean reward and the error-correction loop are wired in.
    assert cfg.reward.custom_reward_function.path == "pkg://kimina_rl.reward"
    assert cfg.actor_rollout_ref.rollout.agent.default_agent_loop == "kimina_fix"
    assert Path(cfg.actor_rollout_ref.rollout.agent.agent_loop_config_path).is_file()
    validate_config(config=cfg, use_reference_policy=False, use_critic=False)


def test_the_1_7b_recipe_has_the_upstream_hyperparameters(recipe_17b: Recipe) -> None:
    cfg = recipe_17b.config
    actor, rollout = cfg.actor_rollout_ref.actor, cfg.actor_rollout_ref.rollout
    assert cfg.actor_rollout_ref.model.path == "AI-MO/Kimina-Prover-Distill-1.7B"
    assert (cfg.trainer.nnodes, cfg.trainer.n_gpus_per_node) == (1, 8)
    assert (cfg.data.train_batch_size, rollout.n, actor.ppo_mini_batch_size) == (256, 8, 32)
    assert actor.optim.lr == 2e-6
    assert (actor.clip_ratio_low, actor.clip_ratio_high) == (0.2, 0.3)
    assert (cfg.data.max_prompt_length, cfg.data.max_response_length) == (8192, 24576)
    assert (rollout.val_kwargs.n, rollout.val_kwargs.temperature, rollout.val_kwargs.top_p) == (8, 1.0, 0.95)
    assert (cfg.trainer.save_freq, cfg.trainer.test_freq, cfg.trainer.resume_mode) == (5, 5, "auto")
    assert cfg.trainer.default_local_dir == "runs/kimina-rl-1.7b/checkpoints"
    assert recipe_17b.settings.hardware.gpu_type == "H100"
    assert cfg.data.val_files == "runs/data/minif2f/minif2f.parquet"


def test_the_0_6b_recipe_differs_from_the_1_7b_only_in_model_names_and_disk(recipe_17b: Recipe) -> None:
    from omegaconf import OmegaConf

    small = OmegaConf.to_container(load_recipe("kimina-rl-0.6b").config, resolve=True)
    big = OmegaConf.to_container(recipe_17b.config, resolve=True)

    def diff(a: object, b: object, path: str = "") -> set[str]:
        if isinstance(a, dict) and isinstance(b, dict):
            return {d for k in a.keys() | b.keys() for d in diff(a.get(k), b.get(k), f"{path}.{k}".lstrip("."))}
        return set() if a == b else {path}

    changed = diff(small, big)
    allowed = {
        "kimina.description",
        "kimina.hardware.min_free_disk_gib",
        "actor_rollout_ref.model.path",
        "trainer.experiment_name",
    }
    # Everything derived from the experiment name (run folder, checkpoints, traces) moves with it.
    derived = {p for p in changed if p not in allowed}
    assert all(
        p in {"kimina.run_dir", "trainer.default_local_dir", "trainer.validation_data_dir"}
        or "experiment_name" in p
        or "served_model_name" in p
        for p in derived
    ), derived
    assert allowed <= changed


def test_smoke_fits_one_small_gpu_and_stops_after_two_steps() -> None:
    recipe = load_recipe("smoke")
    cfg = recipe.config
    assert (cfg.trainer.nnodes, cfg.trainer.n_gpus_per_node, cfg.trainer.total_training_steps) == (1, 1, 2)
    assert recipe.settings.cpu is not None and recipe.settings.verifier.start
    assert recipe.settings.build_tiny_model
    assert cfg.actor_rollout_ref.model.path == "runs/smoke/tiny-model"
    assert cfg.actor_rollout_ref.rollout.name == "vllm" and not recipe.cpu  # on a GPU: the recipes' own rollout


def test_smoke_on_cpu_is_the_same_trainer_with_the_cpu_plugins_pieces() -> None:
    from omegaconf import OmegaConf

    gpu = OmegaConf.to_container(load_recipe("smoke").verl_config, resolve=True)
    recipe = load_recipe("smoke", cpu=True)
    cpu = OmegaConf.to_container(recipe.verl_config, resolve=True)
    assert recipe.cpu and cpu["trainer"]["device"] == "cpu"
    assert cpu["actor_rollout_ref"]["rollout"]["name"] == "hf"
    assert cpu["actor_rollout_ref"]["rollout"]["custom"]["reference_replay"]["share"] == 0.5
    assert cpu["ray_kwargs"]["ray_init"]["num_gpus"] == 1  # logical GPUs, one per trainer process
    # Everything else is the GPU smoke's: algorithm, batch, reward, agent loop, data, schedule, checkpoints.
    for section in ("algorithm", "data", "reward", "critic", "kimina_rl"):
        assert cpu[section] == gpu[section], section
    assert {k: v for k, v in cpu["trainer"].items() if k != "device"} == {
        k: v for k, v in gpu["trainer"].items() if k != "device"
    }


def test_command_line_overrides_win_over_the_cpu_overrides() -> None:
    recipe = load_recipe("smoke", ["trainer.device=cuda", "actor_rollout_ref.rollout.name=vllm"], cpu=True)
    assert (recipe.config.trainer.device, recipe.config.actor_rollout_ref.rollout.name) == ("cuda", "vllm")


def test_a_recipe_without_a_cpu_section_says_so() -> None:
    with pytest.raises(RecipeError, match="kimina-rl-1.7b has no kimina.cpu section: it runs on GPUs only"):
        load_recipe("kimina-rl-1.7b", cpu=True)


def test_overrides_apply_on_top_of_the_recipe() -> None:
    recipe = load_recipe("smoke", ["actor_rollout_ref.actor.optim.lr=0.5", "kimina.run_dir=/tmp/elsewhere"], nnodes=1)
    assert recipe.config.actor_rollout_ref.actor.optim.lr == 0.5
    assert recipe.settings.run_dir == "/tmp/elsewhere"
    assert recipe.config.trainer.default_local_dir == "/tmp/elsewhere/checkpoints"
    assert recipe.overrides[-1] == "trainer.nnodes=1"


def test_unknown_recipe_lists_the_known_ones() -> None:
    with pytest.raises(
        RecipeError, match=r"unknown recipe 'nope' \(known: kimina-rl-0.6b, kimina-rl-1.7b, smoke, ttrl\)"
    ):
        load_recipe("nope")


def test_bad_override_is_a_one_line_recipe_error() -> None:
    with pytest.raises(RecipeError, match="recipe smoke: .*no_such_key") as exc:
        load_recipe("smoke", ["trainer.no_such_key=1"])
    assert "\n" not in str(exc.value) and "a new key needs +KEY=VALUE" in str(exc.value)


@pytest.mark.parametrize(
    ("override", "suggestion"),
    [
        ("trainer.totl_epochs=3", "trainer.total_epochs"),
        ("trainr.total_epochs=3", "trainer.total_epochs"),
        ("actor_rollout_ref.actor.optim.lrr=1e-6", "actor_rollout_ref.actor.optim.lr"),
        ("kimina.verifer.start=false", "kimina.verifier.start"),
        ("~trainer.save_freqs", "trainer.save_freq"),
    ],
)
def test_a_misspelt_key_gets_a_suggestion(override: str, suggestion: str) -> None:
    with pytest.raises(RecipeError) as exc:
        load_recipe("smoke", [override])
    assert str(exc.value).endswith(f"; did you mean {suggestion}?")


def test_unknown_key_in_the_app_section_is_rejected(tmp_path: Path) -> None:
    from kimina_train.recipe import RECIPES_DIR

    bad = tmp_path / "bad.yaml"
    bad.write_text(
        (RECIPES_DIR / "smoke.yaml").read_text().replace("  build_tiny_model: true", "  build_tiny_modle: true")
    )
    with pytest.raises(RecipeError, match=r"kimina.build_tiny_modle: unknown key; did you mean build_tiny_model\?"):
        load_recipe(str(bad))
