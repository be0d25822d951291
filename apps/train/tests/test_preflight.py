"""Each preflight failure a user can hit gives the documented one-line message (see apps/train/README.md)."""

import socket
from pathlib import Path

import pytest
from kimina_train.preflight import Status
from kimina_train.preflight.config import check_verl_config
from kimina_train.preflight.data import check_data
from kimina_train.preflight.environment import check_disk, check_logging, check_versions
from kimina_train.preflight.gpus import Gpu, check_gpus
from kimina_train.preflight.model import check_model
from kimina_train.preflight.verifier import check_verifier
from kimina_train.recipe import Recipe, load_recipe
from kimina_train.settings import HardwareSpec
from kimina_verify import Endpoint, VerifierOptions

H100 = HardwareSpec(gpu_type="H100", min_gpu_memory_gib=79)


def gpus(n: int, name: str = "NVIDIA H100 80GB HBM3", gib: float = 79.6) -> list[Gpu]:
    return [Gpu(name, gib)] * n


def test_no_gpu_points_to_the_smoke_recipe() -> None:
    result = check_gpus([], recipe="kimina-rl-1.7b", per_node=8, nnodes=1, hardware=H100)
    assert result.status is Status.FAIL
    assert result.message == (
        "gpus: recipe kimina-rl-1.7b needs 8 GPUs per node (H100, >= 79 GiB each), and this machine has none "
        "(nvidia-smi not found or lists no GPU) -> run it on a GPU node, or try the launch path with "
        "`--recipe smoke`, which also runs on CPU"
    )


def test_too_few_gpus_says_how_to_scale_down() -> None:
    result = check_gpus(gpus(4), recipe="kimina-rl-1.7b", per_node=8, nnodes=1, hardware=H100)
    assert result.status is Status.FAIL
    assert "this node has 4" in result.message and "trainer.n_gpus_per_node=4" in result.message


def test_small_gpus_fail_on_memory() -> None:
    result = check_gpus(gpus(8, "NVIDIA A10G", 22.0), recipe="kimina-rl-1.7b", per_node=8, nnodes=1, hardware=H100)
    assert result.status is Status.FAIL
    assert "NVIDIA A10G has 22 GiB" in result.message


def test_other_gpu_type_with_enough_memory_is_a_warning() -> None:
    result = check_gpus(gpus(8, "NVIDIA H200", 139.8), recipe="kimina-rl-1.7b", per_node=8, nnodes=1, hardware=H100)
    assert result.status is Status.WARN
    assert "sized for H100" in result.message


def test_eight_h100_pass_and_an_incomplete_cluster_fails() -> None:
    ok = check_gpus(gpus(8), recipe="kimina-rl-1.7b", per_node=8, nnodes=1, hardware=H100)
    assert ok.status is Status.OK and ok.detail == "8 x NVIDIA H100 80GB HBM3 (80 GiB)"
    short = check_gpus(gpus(8), recipe="kimina-rl-1.7b", per_node=8, nnodes=2, hardware=H100, cluster_gpus=8)
    assert short.status is Status.FAIL and "the Ray cluster has 8" in short.message


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_server_down() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    result = check_verifier(VerifierOptions(Endpoint(url)), timeout_s=5)
    assert result.status is Status.FAIL
    assert result.detail.startswith(f"no answer from {url}/health (")
    assert result.fix is not None and "kimina-verify serve" in result.fix


def test_loopback_server_is_refused_for_several_nodes() -> None:
    result = check_verifier(VerifierOptions(Endpoint("http://localhost:8000")), nnodes=2)
    assert result.status is Status.FAIL and "the other 1 node(s) cannot reach" in result.message


def test_canary_against_the_stand_in_server(lean_url: str) -> None:
    result = check_verifier(VerifierOptions(Endpoint(lean_url)), timeout_s=30)
    assert result.status is Status.OK, result.message
    assert result.detail.endswith("canary valid/lean_error as expected")


def test_canary_catches_a_server_that_accepts_a_false_theorem(lean_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Without its `-- sim: error` line the false theorem is accepted by lean-repl-sim, as by a broken real server.
    from kimina_train.preflight import verifier

    monkeypatch.setattr(
        verifier, "CANARY_INVALID", verifier.CANARY_INVALID.replace(" -- sim: error unsolved goals", "")
    )
    result = check_verifier(VerifierOptions(Endpoint(lean_url)), timeout_s=30)
    assert result.status is Status.FAIL
    assert "a false theorem came back valid; rewards would pay for wrong proofs" in result.message


def test_canary_catches_a_server_that_rejects_a_true_theorem(lean_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from kimina_train.preflight import verifier

    broken = verifier.CANARY_VALID.replace("norm_num", "norm_num -- sim: error unknown package 'Mathlib'")
    monkeypatch.setattr(verifier, "CANARY_VALID", broken)
    result = check_verifier(VerifierOptions(Endpoint(lean_url)), timeout_s=30)
    assert result.status is Status.FAIL
    assert "a true theorem came back lean_error (" in result.message and "expected valid" in result.message


def _recipe_with(name: str, *overrides: str) -> Recipe:
    return load_recipe(name, list(overrides))


def test_missing_data_nobody_builds(tmp_path: Path) -> None:
    recipe = _recipe_with("smoke", f"data.train_files={tmp_path}/nowhere.parquet")
    (train,) = [r for r in check_data(recipe) if r.name == "train data"]
    assert train.status is Status.FAIL
    assert train.message == (
        f"train data: {tmp_path}/nowhere.parquet does not exist and the recipe's kimina.data builds nothing there -> "
        "build it with kimina-data, or point data.train_files / data.val_files at existing verl parquet"
    )


def test_missing_data_whose_source_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kimina_data.minif2f.PACKAGED_MINIF2F", tmp_path / "empty" / "minif2f.jsonl")
    recipe = _recipe_with("smoke", f"kimina.run_dir={tmp_path}/run")
    results = check_data(recipe)
    assert [r.status for r in results] == [Status.FAIL, Status.FAIL]
    assert "is missing and cannot be built: the miniF2F file shipped with kimina-data is missing" in results[0].message


def test_missing_data_that_prepare_will_build(tmp_path: Path) -> None:
    recipe = _recipe_with("smoke", f"kimina.run_dir={tmp_path}/run")
    results = check_data(recipe)
    assert [r.status for r in results] == [Status.WARN, Status.WARN]
    assert results[0].fix == "prepare builds it (kimina.data.reference_rows)"  # from miniF2F-test, built first
    assert results[1].fix == "prepare builds it (kimina.data.minif2f)"


def test_model_folder_missing_and_hub_model_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local = check_model(str(tmp_path / "model"))
    assert local.status is Status.FAIL and local.detail == f"model folder {tmp_path / 'model'} does not exist"
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    hub = check_model("AI-MO/Kimina-Prover-Distill-1.7B")
    assert hub.status is Status.FAIL
    assert (
        hub.detail
        == "AI-MO/Kimina-Prover-Distill-1.7B is not in the local Hugging Face cache and HF_HUB_OFFLINE is set"
    )


def test_model_folder_without_tokenizer(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    result = check_model(str(tmp_path))
    assert result.status is Status.FAIL and result.detail.endswith("has no a tokenizer")


def test_disk_space() -> None:
    assert check_disk(Path("runs/x/checkpoints"), 0.001).status is Status.OK
    full = check_disk(Path("runs/x/checkpoints"), 123456789)
    assert full.status is Status.FAIL and full.detail.endswith("recipe needs 1.23457e+08")


def test_versions_require_vllm_only_for_gpu_rollouts() -> None:
    from importlib.util import find_spec

    assert check_versions(needs_vllm=False).status is Status.OK
    if find_spec("vllm") is not None:
        pytest.skip("vLLM is installed here; the missing-vLLM message cannot be shown")
    missing = check_versions(needs_vllm=True)
    assert missing.status is Status.FAIL
    assert missing.message.endswith("vLLM is not installed -> uv sync --all-packages --extra vllm")


def test_wandb_without_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in ("WANDB_API_KEY", "WANDB_MODE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NETRC", str(tmp_path / "netrc"))
    assert check_logging(["console", "wandb"]).status is Status.FAIL
    monkeypatch.setenv("WANDB_MODE", "offline")
    assert check_logging(["console", "wandb"]).status is Status.OK


def test_verl_rejects_greedy_rollouts_with_sampled_validation(recipe_17b: Recipe) -> None:
    assert check_verl_config(recipe_17b.verl_config).status is Status.OK
    bad = load_recipe("kimina-rl-1.7b", ["actor_rollout_ref.rollout.temperature=0"])
    result = check_verl_config(bad.verl_config)
    assert result.status is Status.FAIL
    assert result.detail == (
        "verl rejects the config: validation gen temperature should be greater than 0 when enabling do_sample"
    )


@pytest.mark.parametrize(
    ("override", "detail"),
    [
        (
            "actor_rollout_ref.actor.optim.lr=abc",
            "actor_rollout_ref.actor.optim.lr is 'abc', but verl's FSDPOptimizerConfig takes float there",
        ),
        (
            "actor_rollout_ref.actor.use_kl_loss=yes",
            "actor_rollout_ref.actor.use_kl_loss is 'yes', but verl's FSDPActorConfig takes bool there",
        ),
        (
            "actor_rollout_ref.rollout.name=3",
            "actor_rollout_ref.rollout.name is 3, but verl's RolloutConfig takes str or None there",
        ),
    ],
)
def test_a_value_of_the_wrong_type_fails_in_preflight_on_one_line(override: str, detail: str) -> None:
    result = check_verl_config(load_recipe("kimina-rl-1.7b", [override]).verl_config)
    assert (result.status, result.detail) == (Status.FAIL, detail)
    assert "\n" not in result.message


@pytest.mark.parametrize("override", ["actor_rollout_ref.actor.optim.lr=1", "actor_rollout_ref.actor.optim.lr=3e-6"])
def test_a_value_verl_takes_passes_the_type_check(override: str) -> None:
    # The look-alike: an int where verl declares a float is what Python (and verl) accept.
    assert check_verl_config(load_recipe("kimina-rl-1.7b", [override]).verl_config).status is Status.OK


@pytest.mark.parametrize("name", ["kimina-rl-1.7b", "kimina-rl-0.6b", "smoke", "ttrl"])
def test_every_recipe_passes_the_type_check(name: str) -> None:
    from kimina_train.preflight.config import type_problems
    from omegaconf import OmegaConf

    for recipe in [load_recipe(name)] + ([load_recipe(name, cpu=True)] if name == "smoke" else []):
        assert list(type_problems(OmegaConf.to_container(recipe.verl_config, resolve=True))) == []
