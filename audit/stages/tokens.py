"""Token counts with the tokenizer the config names (stats.tokenizer), for the length report."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from audit.config import ConfigError
from audit.lengths import TokenCounter
from audit.stages import Stage

if TYPE_CHECKING:
    from audit.config import AuditConfig


def tokenizer_path(config: "AuditConfig") -> str:
    """The tokenizer file, resolved against the config's folder; ConfigError when it is missing."""
    assert config.stats.tokenizer
    p = config.resolve(config.stats.tokenizer)
    if not p.is_file():
        raise ConfigError(f"stats.tokenizer: {p} is not a file (name a tokenizers JSON file, e.g. tokenizer.json)")
    return str(p)


class TokenStage(Stage):
    """Writes `length_tokens`: tokens per record (null for unreadable records)."""

    name = "tokens"
    reads = ("text",)
    writes = ("length_tokens",)

    def __init__(self, config: "AuditConfig") -> None:
        super().__init__(config)
        self.counter = TokenCounter(tokenizer_path(config))

    def __call__(self, batch: pa.Table) -> pa.Table:
        return batch.append_column("length_tokens", self.counter.count(batch.column("text")))
