"""Hydra YAML of kimina-rl: the Dr.GRPO base config (`kimina_drgrpo.yaml`) and verl's agent loop list."""
