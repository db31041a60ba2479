"""What measuring a byte costs with the stages a config turns on: `ray.executor: auto`'s choice
between this process and Ray (audit/job/executor.py).

Ray costs about the same to start whatever the stages (its own processes, a worker process a CPU,
each worker's models), and pays that back by sharing the measuring among CPUs: W(1 - 1/cpus) of
one-process work W. `ray.local_max_bytes` is the crossover measured with every default stage and
eval sets on 2 CPUs; a config whose stages cost a third as much per byte crosses over at three
times the input, and a machine with more CPUs crosses over sooner. A stage of the user's own has
no measured cost: the config counts as at least as costly as the reference, which keeps
`local_max_bytes` as it is.
"""
from __future__ import annotations

import math
import os

from audit.config import AuditConfig
from audit.tagger import builtin_stage_names

# CPU seconds per MB of text, one process (make_corpus mix, 30.9 MB, the corpus's GSM8K and
# HumanEval eval sets; bench/bench_job.py --executor local, summary.json "stages", quiet machine,
# 2026-11-25 08:25 UTC).
SECONDS_PER_MB: dict[str, float] = {
    "length": 0.0051, "charset": 0.0044, "junk": 0.018, "language": 0.056, "passages": 0.0067,
    "exact_dup": 0.0018, "near_dup": 0.0068, "contamination": 0.126, "pii": 0.021,
    # tokenizers' BPE over every record (the WordLlama tokenizer; measured beside `language`)
    "tokens": 0.27,
}
# Reading and decoding the shards; the words the stages reading "words" share (one tokenisation).
READ, WORDS = 0.0082, 0.024
# contamination.semantic: WordLlama windows over every record, on top of the stage's other tiers.
SEMANTIC = 0.32
# The built-in stages that read "words" (their `reads`; tests/test_executor.py checks it).
WORD_READERS = frozenset({"passages", "exact_dup", "near_dup", "contamination"})
# What local_max_bytes was measured with: every stage on by default, and eval sets.
REFERENCE_STAGES = ("length", "charset", "junk", "language", "passages", "exact_dup", "near_dup",
                    "contamination", "pii")
# The CPUs local_max_bytes was measured on.
REFERENCE_CPUS = 2


def _seconds_per_mb(names: list[str] | tuple[str, ...], semantic: bool = False) -> float:
    words = WORDS if WORD_READERS.intersection(names) else 0.0
    return READ + words + sum(SECONDS_PER_MB[n] for n in names) + (SEMANTIC if semantic and "contamination" in names else 0.0)


def seconds_per_mb(config: AuditConfig) -> float:
    """One process's CPU seconds per MB of text with the config's stages (the reference's, at least,
    when it has stages of the user's own)."""
    cost = _seconds_per_mb(builtin_stage_names(config), config.contamination.semantic)
    return max(cost, _seconds_per_mb(REFERENCE_STAGES)) if config.stages else cost


def ray_from_bytes(config: AuditConfig) -> float:
    """The input size (bytes of shard files) from which `auto` runs the scan on Ray: infinite on
    one CPU, where Ray only adds its start."""
    cpus = config.ray.num_cpus or os.cpu_count() or 1
    if cpus <= 1:
        return math.inf
    gain = (1 - 1 / cpus) / (1 - 1 / REFERENCE_CPUS)
    return config.ray.local_max_bytes * _seconds_per_mb(REFERENCE_STAGES) / seconds_per_mb(config) / gain
