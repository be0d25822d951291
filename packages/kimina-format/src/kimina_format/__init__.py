"""Format reward for Kimina-style Lean 4 completions: parse, check named rules, score; plus the prompt templates.

No dependencies. The main entry points are `check_format` (one completion), `format_rewards` (a batch, as RL rewards),
`parse_completion` (the thinking, tactic blocks and final code) and `kimina_format.prompts`.
"""

from importlib.metadata import version as _version

from kimina_format.check import FormatVerdict, check_format, format_rewards
from kimina_format.config import FormatConfig
from kimina_format.length import length_penalty
from kimina_format.metrics import FormatMetrics
from kimina_format.parsing import Block, Completion, Span, parse_completion
from kimina_format.prompts import FIX_TEMPLATE, PROMPT_TEMPLATES, PromptTemplate, build_fix_messages, build_messages
from kimina_format.violations import Violation, ViolationCode

__version__ = _version("kimina-format")

__all__ = [
    "FIX_TEMPLATE",
    "PROMPT_TEMPLATES",
    "Block",
    "Completion",
    "FormatConfig",
    "FormatMetrics",
    "FormatVerdict",
    "PromptTemplate",
    "Span",
    "Violation",
    "ViolationCode",
    "__version__",
    "build_fix_messages",
    "build_messages",
    "check_format",
    "format_rewards",
    "length_penalty",
    "parse_completion",
]
