"""The soft length penalty: zero up to a soft limit, then growing linearly to 1 at the maximum."""

from __future__ import annotations

from kimina_format.config import DEFAULT_CONFIG, FormatConfig

__all__ = ["length_penalty"]


def length_penalty(tokens: int, config: FormatConfig = DEFAULT_CONFIG) -> float:
    """Penalty in [0, 1] for a response of `tokens` tokens.

    Zero up to `config.soft_max_tokens`, then linear up to 1 at `config.max_tokens` (and beyond). Without a
    `max_tokens` there is no penalty. This is DAPO's overlong shaping, expressed as a factor to multiply by.

    Example:
        >>> length_penalty(22_528, FormatConfig(soft_max_tokens=20_480, max_tokens=24_576))
        0.5
    """
    soft, hard = config.soft_max_tokens, config.max_tokens
    if hard is None or tokens <= soft:
        return 0.0
    if tokens >= hard:
        return 1.0
    return (tokens - soft) / (hard - soft)
