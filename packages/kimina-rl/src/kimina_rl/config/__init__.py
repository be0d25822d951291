"""Hydra YAML of kimina-rl: the Dr.GRPO base config (`kimina_drgrpo.yaml`) and verl's agent loop list."""

__all__: list[str] = []  # a folder of YAML files, found through `kimina_rl.trainer_config.config_dir`
