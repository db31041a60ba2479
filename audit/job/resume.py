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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from audit import __version__
from audit.config import AuditConfig, config_roles
from audit.io.shards import Shard
from audit.io.storage import Location
from audit.normalize import tables_fingerprint

if TYPE_CHECKING:
    from audit.job.parts import PartWriter

DONE = "_done"  # pyarrow datasets skip names starting with "_": the records never read as data


def measuring_settings(config: AuditConfig) -> dict[str, Any]:
    """The config's settings that measurements depend on, by dotted config path (audit.config's
    marks): every `measure` setting (a list of sections item by item: `eval_sets.0.path`); each
    floored `judge` threshold as the value it is measured down to (min(floor, threshold)); and,
    as `<path>@file`, the files read by path whose content is part of what was measured (eval
    sets, the tokenizer, a second language-ID model, a user stage's module). A user stage's params
    are listed one by one (`stages.0.params.threshold`), but for those its class names in `judges`.
    Unmarked settings count as measuring."""
    dumped = json.loads(config.model_dump_json())
    roles = config_roles()
    lists = {f.path for f in roles if any(g.path.startswith(f"{f.path}.") for g in roles)}
    flat: dict[str, Any] = {}
    for f in roles:
        if f.path in lists:
            for i, item in enumerate(_at(dumped, f.path) or []):
                for g in roles:
                    if g.path.startswith(f"{f.path}.") and g.role not in ("judge", "run"):
                        flat[f"{f.path}.{i}.{g.path[len(f.path) + 1:]}"] = item.get(g.path[len(f.path) + 1:])
        elif any(f.path.startswith(f"{p}.") for p in lists):
            continue  # listed item by item above
        elif f.role == "judge" and f.floor is not None:
            flat[f.path] = min(_at(dumped, f.floor), _at(dumped, f.path))
        elif f.role not in ("judge", "run"):
            flat[f.path] = _at(dumped, f.path)
    if config.stages:
        from audit.tagger import measuring_params

        for i in range(len(config.stages)):  # a user stage's params, but the thresholds its class names
            del flat[f"stages.{i}.params"]
            flat.update({f"stages.{i}.params.{k}": v for k, v in measuring_params(config, i).items()})
    for path, file in _measured_files(config):
        flat[f"{path}@file"] = _file_digest(config, file)
    return flat


def _at(dumped: dict[str, Any], path: str) -> Any:
    """The value at a dotted path of a dumped config (None where absent: an excluded field)."""
    node: Any = dumped
    for key in path.split("."):
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _measured_files(config: AuditConfig) -> list[tuple[str, str]]:
    """(config path, file) of every file the measuring reads by path."""
    files = [(f"eval_sets.{i}.path", e.path) for i, e in enumerate(config.eval_sets)]
    if config.stats.tokenizer:
        files.append(("stats.tokenizer", config.stats.tokenizer))
    if config.languages.second_model:
        files.append(("languages.second_model", config.languages.second_model))
    if config.stages:
        from audit.tagger import stage_source

        files += [(f"stages.{i}.use", stage_source(config, i)) for i in range(len(config.stages))]
    return files


def _file_digest(config: AuditConfig, path: str) -> str:
    """Size and modification time of a file the measuring reads (its content stands for itself)."""
    try:
        st = config.resolve(path).stat()
    except OSError:
        return "missing"
    return f"{st.st_size}:{st.st_mtime_ns}"


def measure_fingerprint(config: AuditConfig, corpus_digest: str = "") -> str:
    """A digest of the measuring settings, the tool version, the normaliser's word rules (a part
    whose words were cut otherwise is measured again) and the n-grams the eval index left out as
    common in the corpus sample (contamination.corpus_df)."""
    blob = json.dumps({"version": __version__, "settings": measuring_settings(config), "corpus": corpus_digest,
                       "words": tables_fingerprint()}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def refused_changes(measured: dict[str, Any], config: AuditConfig) -> list[str]:
    """What keeps `audit decide` from re-judging a run measured with the settings `measured`
    (its run.json's `measuring_settings`) under `config`: the config path of every measuring
    setting that changed, and of every floored threshold now below what was measured down to
    (a threshold raised, or lowered to no less than its measured floor, is re-judged). A changed
    file is named by its setting: "eval_sets.0.path (its file changed)"."""
    now = measuring_settings(config)
    floored = {f.path for f in config_roles() if f.floor is not None}
    out = []
    for key in sorted(set(measured) | set(now)):
        old, new = measured.get(key), now.get(key)
        if key in floored and isinstance(old, (int, float)) and isinstance(new, (int, float)):
            if new < old:
                out.append(key)
        elif old != new and not (key.endswith("@file") and key[:-5] in out):  # a new path names itself
            out.append(f"{key[:-5]} (its file changed)" if key.endswith("@file") else key)
    return out


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


def write_done(measurements: Location, state: ShardState, result: dict[str, Any], part: "PartWriter") -> None:
    """Commit a shard's part: its completion record, written after the part itself, with the
    part's SHA-256 and size (checked before the part is reused or judged)."""
    measurements.child(DONE).mkdir()
    measurements.child(DONE, f"{state.key}.json").write_json({
        "key": state.key, "part": state.part, "shard": state.shard, "location": state.location,
        "index": state.index, "size": state.size, "mtime_ns": state.mtime_ns, "fingerprint": state.fingerprint,
        "part_sha256": part.digest, "part_bytes": part.size, "result": result})


@dataclass
class Reusable:
    """Which completion records of a run's shards can stand for their measurements."""

    done: dict[str, dict[str, Any]]  # by key: records whose part is whole and whose shard was read
    damaged: dict[str, str] = field(default_factory=dict)  # part name -> why it fails its check
    unread: list[str] = field(default_factory=list)  # shards whose reading failed when measured


def check_done(measurements: Location, done: dict[str, dict[str, Any]], keys: list[str],
               keep_unread: bool = False) -> Reusable:
    """The completion records of `keys` whose parts pass their integrity check (part_sha256,
    part_bytes, rows; audit.job.parts.check_part), read a few at a time. A shard whose reading
    failed is not reusable unless `keep_unread` (`audit decide` judges it as it was measured)."""
    from audit.job.parts import check_part

    recs = [done[k] for k in keys if k in done]
    out = Reusable({})
    wanted = set(keys) - set(done)
    for rec in measurements.child(DONE).ls():  # a record that load_done could not take stands for a damaged part
        if rec.name.endswith(".json") and rec.name[:-5] in wanted:
            out.damaged[f"{DONE}/{rec.name}"] = "its completion record is damaged, or its part is missing"
    if not keep_unread:
        out.unread = [r["shard"] for r in recs if r["result"].get("read_error")]
        recs = [r for r in recs if not r["result"].get("read_error")]

    def check(rec: dict[str, Any]) -> str | None:
        return check_part(measurements.child(rec["part"]), rec.get("part_sha256"), rec.get("part_bytes"),
                          int(rec["result"].get("rows", -1)))

    with ThreadPoolExecutor(8, thread_name_prefix="audit-check") as pool:  # I/O bound: parts are read whole
        for rec, problem in zip(recs, pool.map(check, recs)):
            if problem is None:
                out.done[rec["key"]] = rec
            else:
                out.damaged[rec["part"]] = problem
    return out


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
