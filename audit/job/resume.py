"""Resuming a run: which shards' measurements can be reused, and which settings allow re-judging.

Each shard's measurements are one Parquet part in `OUT/measurements/`, committed by a completion
record `measurements/_done/<key>.json` written after the part. The key hashes what the
measurements depend on: the shard (path, place, size, modification time, position) and the
measuring settings (`measure_fingerprint`). A re-run reuses every part whose record matches and
measures the rest; `audit decide` re-judges a finished run when only judging settings changed.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from audit import __version__
from audit.config import AuditConfig
from audit.io.shards import Shard
from audit.io.storage import Location

DONE = "_done"  # pyarrow datasets skip names starting with "_": the records never read as data

# Settings that only judge measurements (thresholds of each stage's `judge`, the recipe, the
# summary's context lengths) or run the job (where, on what): changing them needs no new
# measuring. Every other setting is taken to change measurements, so a key added later is safe.
JUDGE_ONLY = frozenset({
    "output", "sidecar", "ray", "fail_on_contamination",
    "languages.expected", "languages.js_threshold", "languages.psi_threshold",
    "languages.new_language_min_share", "languages.other_tolerance", "languages.allowed", "languages.max_und_share",
    "filters.length.min_chars", "filters.length.max_chars", "filters.length.min_words",
    "filters.charset.min_alnum_share", "filters.charset.max_control_share", "filters.charset.max_replacement_share",
    "filters.charset.min_mojibake", "filters.charset.min_mojibake_share", "filters.charset.max_surrogates",
    "filters.junk.max_base64_share", "filters.junk.max_long_token_share", "filters.junk.max_code_line_share",
    "filters.junk.max_mean_line_chars", "filters.junk.max_symbol_share", "filters.junk.max_markup_share",
    "filters.junk.min_mean_word_chars", "filters.junk.max_mean_word_chars", "filters.junk.max_dup_line_share",
    "filters.junk.max_top_ngram_share",
    "dedup.min_shared_bands",
    "contamination.threshold", "contamination.minhash_threshold", "contamination.semantic_threshold",
    "contamination.canary_methods",
    "pii.quarantine_types", "pii.min_score",
    "stats.context_lengths",
})


def measuring_settings(config: AuditConfig) -> dict[str, Any]:
    """The config's settings that measurements depend on, as flat dotted keys."""
    flat: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if prefix in JUDGE_ONLY:
            return
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else k, v)
        else:
            flat[prefix] = value

    walk("", json.loads(config.model_dump_json()))
    # thresholds are judge-only down to their measure floors: the floors are measuring settings
    flat["contamination.floor"] = config.contamination.floor
    flat["contamination.minhash_floor"] = config.contamination.minhash_floor
    flat["pii.floor"] = config.pii.floor
    # eval sets and tokenizer files are read by path: their content is part of what was measured
    for name, path in _measured_files(config):
        flat[f"file:{name}"] = _file_digest(config, path)
    return flat


def _measured_files(config: AuditConfig) -> list[tuple[str, str]]:
    files = [(f"eval_sets.{e.name}", e.path) for e in config.eval_sets]
    if config.stats.tokenizer:
        files.append(("stats.tokenizer", config.stats.tokenizer))
    return files


def _file_digest(config: AuditConfig, path: str) -> str:
    """Size and modification time of a file the measuring reads (its content stands for itself)."""
    try:
        st = config.resolve(path).stat()
    except OSError:
        return "missing"
    return f"{st.st_size}:{st.st_mtime_ns}"


def measure_fingerprint(config: AuditConfig, corpus_digest: str = "") -> str:
    """A digest of the measuring settings, the tool version and the n-grams the eval index left
    out as common in the corpus sample (contamination.corpus_df)."""
    blob = json.dumps({"version": __version__, "settings": measuring_settings(config), "corpus": corpus_digest},
                      sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def changed_measuring_settings(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Dotted keys whose measuring value differs between two `measuring_settings`."""
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))


@dataclass(frozen=True)
class ShardState:
    """What a shard's measurements depend on, and the key that names them."""

    shard: str
    location: str
    index: int
    size: int | None
    mtime_ns: int | None
    fingerprint: str

    @property
    def key(self) -> str:
        blob = json.dumps([self.shard, self.location, self.index, self.size, self.mtime_ns, self.fingerprint])
        return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:24]

    @property
    def part(self) -> str:
        return f"part-{self.index:06d}-{self.key}.parquet"


def shard_state(shard: Shard, fingerprint: str) -> ShardState:
    """The shard's current state (size and modification time read from its filesystem)."""
    from audit.io.storage import location

    size = mtime = None
    try:
        loc = location(shard.location)
        size, mtime = loc.size(), loc.mtime_ns()
    except (OSError, ValueError):
        pass  # an unreadable shard is measured (and named) again each run
    return ShardState(shard.path, str(shard.location), shard.index, size, mtime, fingerprint)


def load_done(measurements: Location) -> dict[str, dict[str, Any]]:
    """Completion records by key; a damaged record counts as missing (its shard is measured again)."""
    done: dict[str, dict[str, Any]] = {}
    for rec in measurements.child(DONE).ls():
        if not rec.name.endswith(".json"):
            continue
        try:
            data = rec.read_json()
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("key") == rec.name[:-5] and measurements.child(data.get("part", "")).is_file():
            done[data["key"]] = data
    return done


def write_done(measurements: Location, state: ShardState, result: dict[str, Any]) -> None:
    """Commit a shard's part: its completion record, written after the part itself."""
    measurements.child(DONE).mkdir()
    measurements.child(DONE, f"{state.key}.json").write_json({
        "key": state.key, "part": state.part, "shard": state.shard, "location": state.location,
        "index": state.index, "size": state.size, "mtime_ns": state.mtime_ns, "fingerprint": state.fingerprint,
        "result": result})


def start_attempt(measurements: Location, state: ShardState) -> int:
    """Count one more start of this shard's scan (a task retried after a lost worker, or a shard
    begun by a run that was killed, starts again): returns the attempt number, 1 the first time."""
    marker = measurements.child(DONE, f"{state.key}.attempts")
    try:
        n = int(marker.read_text()) + 1
    except (OSError, ValueError):
        n = 1
    measurements.child(DONE).mkdir()
    marker.write_text(str(n))
    return n


def drop_unused(measurements: Location, keep: set[str]) -> None:
    """Remove parts and records that no shard of the finished run uses (older runs', killed tasks')."""
    keep_parts = {f"{k}.parquet" for k in keep}
    for p in measurements.ls():
        if p.name.startswith("part-") and p.name.split("-", 2)[-1] not in keep_parts:
            p.delete()
        elif p.name.startswith("."):  # a killed task's temporary file
            p.delete()
    for rec in measurements.child(DONE).ls():
        # attempt counters are in the finished run's results: the next run counts afresh
        if rec.name.endswith(".attempts") or rec.name.split(".")[0] not in keep:
            rec.delete()
