"""audit: data-quality and contamination auditing for LLM pre-training data."""

__version__ = "0.1.0"

from audit.stages import Stage  # noqa: E402 - the stage protocol of CONTRACT.md, `from audit import Stage`
