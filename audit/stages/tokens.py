"""Token counts with the tokenizer the config names (stats.tokenizer), for the length report."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from audit.config import ConfigError
from audit.lengths import TokenCounter
from audit.stages import ConfigStage

if TYPE_CHECKING:
    from audit.config import AuditConfig


def tokenizer_path(config: "AuditConfig") -> str:
    """The tokenizer file, resolved against the config's folder; ConfigError when it is missing."""
    assert config.stats.tokenizer
    p = config.resolve(config.stats.tokenizer)
    if not p.is_file():
        raise ConfigError(f"stats.tokenizer: {p} is not a file (name a tokenizers JSON file, e.g. tokenizer.json)")
    return str(p)


def load_token_counter(config: "AuditConfig") -> TokenCounter:
    """The TokenCounter of stats.tokenizer, built once (on the driver, so a bad file stops the run
    before any work); ConfigError of one line for a missing, unreadable or invalid file."""
    path = tokenizer_path(config)
    try:
        return TokenCounter(path)
    except Exception as e:  # tokenizers raises a bare Exception for a file it cannot parse
        problem = " ".join(str(e).split()) or type(e).__name__
        raise ConfigError(f"stats.tokenizer: {path} is not a usable tokenizers JSON file ({problem}): "
                          "name a tokenizer.json saved by the `tokenizers` library") from None


class TokenStage(ConfigStage):
    """Writes `length_tokens`: tokens per record (null for unreadable records)."""

    name = "tokens"
    reads = ("text",)
    writes = ("length_tokens",)

    def __init__(self, config: "AuditConfig", counter: TokenCounter | None = None) -> None:
        """`counter`: the one load_token_counter built on the driver; loaded here when not given."""
        super().__init__(config)
        self.counter = counter

    def setup(self) -> None:
        if self.counter is None:
            self.counter = load_token_counter(self.config)

    def __call__(self, batch: pa.Table) -> pa.Table:
        return batch.append_column("length_tokens", self.counter.count(batch.column("text")))
