"""audit: data-quality and contamination auditing for LLM pre-training data."""

__version__ = "0.1.0"
