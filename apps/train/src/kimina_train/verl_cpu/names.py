"""Names this plugin registers in verl, kept apart so the rollout and the registration share them freely."""

ROLLOUT_NAME = "hf"
"""`actor_rollout_ref.rollout.name` of the transformers rollout this plugin adds."""
