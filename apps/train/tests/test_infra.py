"""The deployment files can only be exercised on clusters; here: they parse, agree with the app, and stay in sync."""

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from kimina_train.cli import parse_args
from kimina_train.recipe import list_recipes

INFRA = Path(__file__).resolve().parents[3] / "infra"


def test_rayjob_runs_a_known_recipe_on_as_many_nodes_as_the_cluster_has() -> None:
    job, claim = yaml.safe_load_all((INFRA / "k8s" / "rayjob.yaml").read_text())
    assert (job["kind"], claim["kind"]) == ("RayJob", "PersistentVolumeClaim")
    entry = shlex.split(job["spec"]["entrypoint"])
    args = parse_args(entry[entry.index("kimina-train") + 1 :] + ["--ray-address", "set-by-ray"])
    assert args.recipe in list_recipes()
    workers = sum(group["replicas"] for group in job["spec"]["rayClusterSpec"]["workerGroupSpecs"])
    assert args.nnodes == 1 + workers


def test_verifier_deployment_settings_are_valid_server_settings() -> None:
    from kimina_verify.server.settings import ServerSettings

    deployment, service, budget = yaml.safe_load_all((INFRA / "verifier" / "verifier.yaml").read_text())
    assert (deployment["kind"], service["kind"], budget["kind"]) == ("Deployment", "Service", "PodDisruptionBudget")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    settings = ServerSettings.from_env({e["name"]: e["value"] for e in container["env"]})
    assert settings.max_repls == 15 and settings.max_repl_mem == 8 * 1024
    assert sum(settings.init_repls.values()) == settings.max_repls
    assert deployment["spec"]["replicas"] == 5 and budget["spec"]["minAvailable"] == 4
    assert service["metadata"]["name"] == "kimina-verifier"


def test_slurm_script_is_valid_bash() -> None:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    subprocess.run(["bash", "-n", str(INFRA / "slurm" / "train.sbatch")], check=True)
