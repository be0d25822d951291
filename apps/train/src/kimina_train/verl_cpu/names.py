"""Names this plugin registers in verl, kept apart so the rollout and the registration share them freely."""

__all__ = ["ROLLOUT_NAME"]

ROLLOUT_NAME = "hf"
"""`actor_rollout_ref.rollout.name` of the transformers rollout this plugin adds."""
