"""verl 0.9.1 glue for Kimina-Prover RL: the Lean reward, the `kimina_fix` agent loop, Dr.GRPO config, win-rate history.

The same reward in TRL's contract is `LeanReward` (`kimina_rl.trl_reward`), for `trl.GRPOTrainer`.

`import kimina_rl` stays light: verl and the verification client are imported when first used. The agent loop
(`kimina_rl.agent_loop`) is imported by verl's workers from `config/agent_loops.yaml`, not from here.
"""

from importlib.metadata import version as _version

from kimina_format.lazy import lazy_exports

from kimina_rl.history import Outcome, WinRate, WinRateHistory, merge_win_rates, write_win_rates
from kimina_rl.reward import compute_score
from kimina_rl.scoring import REWARD_KEYS, Attempt, RewardProblem, reward_info
from kimina_rl.service import Scorer, scorer_for
from kimina_rl.settings import RL_VERIFIER_DEFAULTS, FixSettings, ScorerSettings, Settings
from kimina_rl.trainer_config import (
    BASE_CONFIG_NAME,
    agent_loop_config_path,
    compose_config,
    config_dir,
    launch_overrides,
    search_path,
)
from kimina_rl.trl_reward import LeanReward

__version__ = _version("kimina-rl")

# Renamed in 0.4 (one name per concept across the workspace); the old names warn and still work.
_DEPRECATED = {
    "Problem": ("kimina_rl.scoring", "RewardProblem"),
    "VerifierUnavailableError": ("kimina_verify.errors", "VerifierUnavailable"),
}

__getattr__, __dir__ = lazy_exports(__name__, deprecated=_DEPRECATED)


__all__ = [
    "BASE_CONFIG_NAME",
    "REWARD_KEYS",
    "Attempt",
    "FixSettings",
    "LeanReward",
    "Outcome",
    "RewardProblem",
    "Scorer",
    "RL_VERIFIER_DEFAULTS",
    "ScorerSettings",
    "Settings",
    "WinRate",
    "WinRateHistory",
    "__version__",
    "agent_loop_config_path",
    "compose_config",
    "config_dir",
    "compute_score",
    "launch_overrides",
    "merge_win_rates",
    "reward_info",
    "scorer_for",
    "search_path",
    "write_win_rates",
]
