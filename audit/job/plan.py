"""The driver of the audit job: plan -> scan -> global -> decide -> index -> report.

    plan     shards, their completion records, the backend (audit/job/executor.py: Ray Core tasks,
             or this process for a small input)
    scan     a task per shard: read -> tag -> measurements/part-*.parquet + completion record
    global   exact and near duplicates (one partition here or in a task; larger runs are
             hash-partitioned by a Ray Data shuffle) -> duplicates/
    decide   a task per measurement part: judge -> lineage/ quarantine/ contamination/ pii/
    index    the lookup index (audit/lookup_index.py) -> index/
    report   the driver merges per-shard results into summary.json, writes report.html, swaps the run in

No record passes through the driver: it receives counts, sketches and unreadable entries. A run
into a folder holding measurements of the same shards and measuring settings reuses them (a
killed run resumes); `audit decide` re-judges a finished run from its measurements alone.
"""
from __future__ import annotations

import dataclasses
import errno
import gc
import json
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from audit import __version__
from audit.blocklist import Blocklist
from audit.config import AuditConfig, ConfigError
from audit.io.run_lock import hold_run_folder
from audit.io.shards import InputError, Shard, corpus_sample, discover_shards
from audit.io.storage import Location, causes, location
from audit.job.executor import Executor, LocalExecutor, RayExecutor, choose, make_executor
from audit.job.parts import new_run_id
from audit.job.ray_session import session_line
from audit.job.resume import (DONE, ShardState, check_done, drop_unused, load_done, measure_fingerprint,
                              measuring_settings, refused_changes, shard_state)
from audit.job.run_folder import (DECIDING, JUDGEMENTS, JUDGEMENTS_KEPT, MEASUREMENTS, archive_judgement,
                                  check_output_folder, clean_leftovers, copy_tree, judgement_history, new_work_folder,
                                  prune_judgements, reading_run_folder, replace_run, require_finished, run_config,
                                  run_manifest, start_new_run)
from audit.job.scan import ShardResult
from audit.progress import Progress
from audit.summary import SummaryBuilder
from audit.tagger import prepare_stages


class CanaryTripped(RuntimeError):
    """fail_on_contamination: a record matched an eval item."""

    def __init__(self, match: dict) -> None:
        self.match = match
        super().__init__(
            f"contamination canary: record {match.get('record')} of shard {match.get('shard')} "
            f"(doc_id {match.get('doc_id')}) contains eval item {match.get('eval_id')} of "
            f"eval set '{match.get('eval_set')}' (overlap {match.get('overlap', 0):.2f})")


@dataclass
class RunResult:
    """Where the run's outputs are and its summary."""

    out: Path | str  # a local folder, or an object-store URI
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Measured:
    """The run's shards with their measurement parts and per-shard results."""

    shards: list[Shard]
    states: list[ShardState]
    results: dict[str, ShardResult]  # by shard key
    reused: int = 0
    executor: Executor = field(default_factory=LocalExecutor)
    ray_seconds: float = 0.0
    scan_seconds: float = 0.0
    corpus_df: dict[str, Any] | None = None  # n-grams the eval index left out as common in the corpus sample
    damaged: dict[str, str] = field(default_factory=dict)  # parts that failed their check: measured again
    unread: list[str] = field(default_factory=list)  # shards an earlier run could not read: measured again


# Blocks the corpus sample is read in (the shards' first records only, not whole blocks of them).
_SAMPLE_BLOCK_BYTES = 1 << 18
# The stages whose state the driver builds once and ships (their Tagger entry in `_shared_state`).
SHARED_STAGES = ("tokens", "contamination")


def _shared_state(config: AuditConfig, shards: list[Shard]) -> dict[str, Any]:
    """Heavy state built once on the driver and shipped to every Tagger: the eval-set index and
    the tokenizer. A bad eval set or tokenizer file is a config error here, before any work. The
    index leaves out n-grams common in a bounded sample of the corpus (contamination.corpus_df)."""
    shared: dict[str, Any] = {}
    if config.stats.tokenizer:
        from audit.stages.tokens import load_token_counter

        shared["tokens"] = {"counter": load_token_counter(config)}
    if config.eval_sets:
        from audit.stages.contamination import ContaminationIndex

        c = config.contamination
        # small blocks: the sample stops reading a shard soon after its quota (the texts are the same)
        small = config.input.model_copy(update={"block_bytes": min(config.input.block_bytes, _SAMPLE_BLOCK_BYTES)})
        sample = corpus_sample(shards, small, c.corpus_df_sample) if c.corpus_df else None
        # millions of small objects made at once, next to no garbage: the cyclic collector's
        # full passes over the growing index cost 0.25 CPU s on the bench corpus
        collecting = gc.isenabled()
        gc.disable()
        try:
            shared["contamination"] = {"index": ContaminationIndex.build(config, sample)}
        finally:
            if collecting:
                gc.enable()
    return shared


def _out_location(config: AuditConfig, out: Path | str | None) -> Location:
    """--out (relative to the working folder) or the config's `output` (relative to the config)."""
    return location(out, Path.cwd()) if out is not None else location(config.output, config.base_dir)


def run_audit(config: AuditConfig, out: Path | str | None = None, address: str | None = None,
              progress: bool = True, fresh: bool = False) -> RunResult:
    """Run the whole job; returns where the outputs are and the summary.

    Shards measured by an earlier, unfinished or finished, run into the same folder with the same
    measuring settings are reused; `fresh` measures everything again. Raises InputError for
    unusable input or output paths and CanaryTripped when fail_on_contamination is set and a
    match is found (the previous outputs are left untouched; the measurements made are kept).
    """
    if not config.input.paths:
        raise ConfigError("input.paths: name at least one shard file, folder or glob for `audit run` "
                          "(see configs/default.yaml)")
    with Progress(enabled=progress) as meter:
        return _run(config, out, address, fresh, meter)


def _run(config: AuditConfig, out: Path | str | None, address: str | None, fresh: bool, meter: Progress) -> RunResult:
    """run_audit's passes, their progress on `meter`."""
    started = datetime.now(timezone.utc)
    out_loc = _out_location(config, out)
    shards, problems = discover_shards(config.input.paths, config.base_dir)
    check_output_folder(out_loc, shards)
    meter.start("plan", len(shards), "shards")
    # a cluster is joined before the output folder is touched: a failed connect leaves nothing there
    joined = RayExecutor(config, address) if address else None
    try:
        out_loc.mkdir()
    except OSError as e:
        raise InputError(f"output {out_loc}: cannot create the folder: {e}") from None
    with hold_run_folder(out_loc):  # a second run into this folder stops here, before touching it
        clean_leftovers(out_loc)
        measurements = out_loc.child(MEASUREMENTS)
        if fresh:
            measurements.delete()
        measurements.mkdir()
        found = [shard_state(s, "") for s in shards]  # sizes and times, fingerprinted once the eval index is built
        done = load_done(measurements)
        t0 = time.perf_counter()
        shared, ex = _start(config, shards, joined, sum(st.size or 0 for st in found), len(done) < len(shards))
        if ex.uses_ray:
            meter.say(session_line())
        measured = _measure(config, shards, found, done, measurements, shared, ex, meter)
        summary = _finish(config, out_loc, measured, problems, started, t0, meter)
        meter.close(summary)
    return RunResult(out=Path(out_loc.path) if out_loc.is_local else out_loc.uri, summary=summary)


def _start(config: AuditConfig, shards: list[Shard], joined: RayExecutor | None, input_bytes: int,
           will_measure: bool) -> tuple[dict[str, Any], Executor]:
    """The shared state and the backend (`joined`: the cluster `--address` named, joined already).
    The stages' models load (on a Ray backend: Ray starts and its workers load them; here: in a
    thread) while this process builds the shared state."""
    to_ray, why = (True, "--address") if joined is not None else choose(config, None, input_bytes)
    if not to_ray:
        local = LocalExecutor()
        local.why = why
        if will_measure:
            local.warm(prepare_stages, config, SHARED_STAGES)
        return _shared_state(config, shards), local
    with ThreadPoolExecutor(1, thread_name_prefix="audit-shared") as pool:
        building = pool.submit(_shared_state, config, shards)
        try:
            ex = joined or RayExecutor(config, None)
            ex.why = why
            if will_measure:
                ex.warm(prepare_stages, config, SHARED_STAGES, num_cpus=config.ray.task_cpus)
        finally:
            shared = building.result()  # a bad eval set: its ConfigError, one line
    return shared, ex


def _measure(config: AuditConfig, shards: list[Shard], found: list[ShardState], done: dict[str, dict[str, Any]],
             measurements: Location, shared: dict[str, Any], ex: Executor, meter: Progress) -> _Measured:
    """Pass 1: measure every shard without a matching completion record."""
    from audit.job.scan import scan

    index = shared.get("contamination", {}).get("index")
    fingerprint = measure_fingerprint(config, index.corpus_digest if index is not None else "")
    states = [dataclasses.replace(st, fingerprint=fingerprint) for st in found]
    checked = check_done(measurements, done, [st.key for st in states])  # a damaged part is measured again
    results = {st.key: ShardResult.from_record(checked.done[st.key]["result"]) for st in states
               if st.key in checked.done}
    measured = _Measured(shards, states, results, reused=len(results), damaged=checked.damaged, unread=checked.unread)
    if index is not None and config.contamination.corpus_df:
        measured.corpus_df = {"sample_documents": index.corpus_sample_docs, "ngrams_left_out": index.corpus_common_grams}
    canary = config.fail_on_contamination and bool(config.eval_sets)
    for st in states:  # a reused shard that matches an eval item trips the canary at once
        match = _reused_canary(measurements, st, config) if canary and st.key in results else None
        if match:
            raise CanaryTripped(match)
    todo = [(s, st) for s, st in zip(shards, states) if st.key not in results]
    reused_records = sum(r.records for r in results.values())
    meter.end(records=reused_records)
    meter.start("scan", len(states), "shards", size_total=sum(st.size or 0 for _, st in todo), done=len(results),
                records=reused_records)
    size_of = {st.key: st.size or 0 for st in states}
    measured.executor = ex
    measured.ray_seconds = ex.start_seconds
    t0 = time.perf_counter()
    failure = ""
    if todo:
        try:
            for key, result in scan(ex, config, todo, measurements, ex.put(shared), canary):
                results[key] = result
                meter.advance(records=result.records, nbytes=result.bytes, size=size_of[key])
                if canary and result.canary:
                    raise CanaryTripped(result.canary)
        except CanaryTripped:
            raise
        except Exception as e:  # noqa: BLE001 - a task lost past its retries: name its shard(s)
            full = next((c for c in causes(e) if isinstance(c, OSError) and c.errno in _FULL), None)
            if full is not None:  # here, or in a Ray task: one line with what it takes to finish
                raise InputError(_space_needed(full, measurements, states, results)) from None
            if not (ex.uses_ray and _lost_worker(e)):
                raise  # an error in our own code: an internal error, not a lost shard
            failure = f"{type(e).__name__}: {str(e).strip().splitlines()[-1][:300] if str(e).strip() else ''}"
            # what the tasks that finished committed (checked as any reused part is)
            left = check_done(measurements, load_done(measurements),
                              [st.key for st in states if st.key not in results])
            results.update({k: ShardResult.from_record(rec["result"]) for k, rec in left.done.items()})
    missing = [st.shard for st in states if st.key not in results]
    if missing:
        raise InputError(f"shard {missing[0]}: not measured ({len(missing)} shard(s) failed after 3 retries"
                         f"{': ' + failure if failure else ''}); the shards measured are kept: run again to "
                         "resume")
    measured.scan_seconds = time.perf_counter() - t0
    meter.end()
    return measured


def _reused_canary(measurements: Location, state: ShardState, config: AuditConfig) -> dict[str, Any] | None:
    """A reused shard's first counted match under this run's thresholds and canary_methods, judged
    from its measurement part (the match kept in its completion record was judged by the settings
    of the run that measured it)."""
    import pyarrow.parquet as pq

    from audit.stages.contamination import first_match

    with measurements.child(state.part).open_input() as f:
        pf = pq.ParquetFile(f)
        columns = [c for c in ("doc_id", "shard", "record", "contamination") if c in pf.schema_arrow.names]
        if "contamination" not in columns:
            return None
        return first_match(pf.read(columns=columns), config)


def _lost_worker(e: BaseException) -> bool:
    """Whether an error is Ray losing a worker, node or object (after its retries), not a bug."""
    from ray import exceptions as rex

    lost = (rex.WorkerCrashedError, rex.NodeDiedError, rex.ObjectLostError, rex.OwnerDiedError,
            rex.LocalRayletDiedError, rex.RaySystemError)
    return any(isinstance(c, lost) for c in causes(e))


# A full disk, a quota, a file-size limit: the scan stops with the space it still needs.
_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


def _space_needed(e: OSError, measurements: Location, states: list[ShardState], results: dict[str, ShardResult]) -> str:
    """The one line of a full disk during the scan: where, and about how much more space the
    measurements of the shards left take (their input bytes at the measured-to-input ratio of
    the parts written so far; 1:1 before any)."""
    left = [st for st in states if st.key not in results]
    left_bytes = sum(st.size or 0 for st in left)
    written = [d for d in load_done(measurements).values() if d.get("part_bytes") and d.get("size")]
    ratio = sum(d["part_bytes"] for d in written) / max(1, sum(d["size"] for d in written)) if written else 1.0
    why = {errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
           errno.EFBIG: "file too large for a limit in force"}[e.errno]  # type: ignore[index]
    return (f"{e.filename or measurements}: {why} ({e.strerror or e}) while measuring: about "
            f"{_mib(left_bytes * ratio)} more is needed for the measurements of the {len(left)} shard(s) left "
            f"({_mib(left_bytes)} of input at {ratio:.0%}), and room for the outputs after; free space, then run "
            "again (finished shards are reused)")


def _mib(n: float) -> str:
    """Bytes for a message: MiB, or KiB below one MiB."""
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{max(1, round(n / 1024))} KiB"


def _finish(config: AuditConfig, out: Location, measured: _Measured, problems: list[dict], started: datetime,
            t0: float, meter: Progress) -> dict[str, Any]:
    """Passes 2 and 3 and the summary, into a fresh work folder swapped in at the end."""
    from audit.job.decide_pass import decide_all, fill_empty_datasets
    from audit.job.global_dedup import global_duplicates
    from audit.job.index_pass import build_index, plan_index

    ex = measured.executor
    measurements = out.child(MEASUREMENTS)
    blocklist = load_blocklist(out)
    work = new_work_folder(out)
    run_id = new_run_id(started)  # in summary.json and every dataset part's schema metadata
    try:
        timing: dict[str, float] = {}
        retried: dict[str, int] = {}
        results = measured.results
        # shard scans started more than once: a task retried after a lost worker, or a killed run
        restarts = sum(max(0, r.attempt - 1) for r in results.values())
        read_retries = sum(r.read_retries for r in results.values())
        unread = [st.shard for st in measured.states if results[st.key].read_error]
        for r in results.values():
            for k, v in r.seconds.items():
                timing[k] = timing.get(k, 0.0) + v
            for k, v in r.retried_blocks.items():
                retried[k] = retried.get(k, 0) + v
        with_rows = [(measurements.child(st.part), st) for st in measured.states if results[st.key].rows > 0]
        records = sum(results[st.key].records for st in measured.states)
        text_bytes = sum(results[st.key].bytes for st in measured.states)
        t1 = time.perf_counter()
        dup_parts = [p for p, _ in with_rows]
        dup_out = work.child("duplicates")
        meter.start("dedup", len(dup_parts), "parts")
        dup_stats = global_duplicates(config, dup_parts, records, dup_out, ex, run_id)
        meter.end(records=records, nbytes=text_bytes)
        timing["dedup_global"] = time.perf_counter() - t1
        t2 = time.perf_counter()
        summary = SummaryBuilder(config)
        for p in problems:
            summary.add_unreadable(p)
        lineage_rows: dict[str, int] = {}
        by_shard = {st.shard: results[st.key] for st in measured.states}
        passages = with_rows if config.lookup.passages else []
        # a shard's lineage holds a row for each of its records: the index is planned before the
        # decide pass, whose tasks write the records buckets their shards have to themselves
        planned = {st.shard: results[st.key].records for _, st in with_rows}
        index_plan = plan_index(ex, config, work, planned, sum(results[st.key].rows for _, st in passages))
        written = []
        meter.start("decide", len(with_rows), "parts")
        for part in decide_all(ex, config, [(p, st.shard, st.index) for p, st in with_rows], work, blocklist, run_id,
                               index_plan.own):
            summary.merge(part.summary)
            lineage_rows[part.shard] = part.lineage_rows
            if part.record_fences is not None:
                written.append(part.record_fences)
            meter.advance(records=by_shard[part.shard].records, nbytes=by_shard[part.shard].bytes)
        fill_empty_datasets(config, work, run_id)
        meter.end()
        timing["decide_write"] = time.perf_counter() - t2
        off = next((s for s, n in planned.items() if lineage_rows.get(s) != n), None)
        if off is not None:  # the index was planned on it: a bug of ours, never bad input
            raise RuntimeError(f"shard {off}: {lineage_rows.get(off)} lineage rows, but {planned[off]} records measured")
        indexed = [st for _, st in with_rows if lineage_rows.get(st.shard)]
        meter.start("index", len(indexed), "parts")
        if indexed:
            t3 = time.perf_counter()
            build_index(ex, work, index_plan, [(work.child("lineage", f"part-{st.index:06d}.parquet"), st.shard)
                                               for _, st in with_rows], [p for p, _ in passages], written)
            timing["lookup_index"] = time.perf_counter() - t3
        meter.end(records=sum(lineage_rows.values()), nbytes=text_bytes)
        meter.start("report", 1, "parts")
        seconds = time.perf_counter() - t0
        result = summary.finish(
            seconds=seconds, scan_seconds=measured.scan_seconds, ray_start_seconds=measured.ray_seconds,
            stages=timing, shards=len(measured.shards), duplicates=dup_stats, started=started, version=__version__,
            run_id=run_id,
            extra={"resume": {"shards_reused": measured.reused, "shards_measured": len(measured.shards) - measured.reused},
                   "executor": {"backend": "ray" if ex.uses_ray else "local", "slots": ex.slots, "why": ex.why},
                   "retried_blocks": dict(sorted(retried.items())), "scan_retries": restarts,
                   # faults met and got past: reads tried again, shards left unread (measured again next
                   # run), parts that failed their check and shards an earlier run could not read (both
                   # measured again by this one)
                   "read_retries": read_retries, "shards_unreadable": len(unread),
                   "parts_damaged": len(measured.damaged), "shards_unread_before": len(measured.unread)})
        if measured.corpus_df is not None and "contamination" in result:
            result["contamination"]["corpus_df"] = measured.corpus_df
        result["warnings"] += [f"{step} failed on {n} block(s); they were re-measured a record at a time, "
                               "which is slow: check that step's library build" for step, n in sorted(retried.items())]
        result["warnings"] += _fault_warnings(measured, read_retries, unread)
        if blocklist.passages and not config.lookup.passages:  # said, never skipped silently
            result["warnings"].append(f"{len(blocklist.passages)} blocked passage(s) were not matched: lookup.passages "
                                      "is off, so records carry no passage fingerprints; turn it on")
        if restarts:
            result["warnings"].append(f"{restarts} shard scan(s) started again after a lost worker or a killed run "
                                      "(their parts were rewritten whole)")
        for w in result["warnings"]:
            meter.say(f"audit: warning: {w}")
        work.child("unreadable.jsonl").write_text(
            "".join(json.dumps(u, ensure_ascii=False) + "\n" for u in summary.unreadable))
        _write_run_manifest(work, config, measured, problems)
        # on a Ray worker, the report's reading of quarantine/ examples stays out of the driver's memory;
        # the report lists the judgements an `audit decide` replaced (not part of summary.json)
        history = judgement_history(out)[-JUDGEMENTS_KEPT:]  # as the folder keeps it once this one is in place
        ex.call(_write_report, work, {**result, "judgements": history} if history else result, name="write_report")
        work.child("summary.json").write_json(result)
        replace_run(out, work)
        meter.end(records=result["documents"], nbytes=text_bytes)
    finally:
        work.delete()
    drop_unused(measurements, {st.key for st in measured.states})
    return result


def _fault_warnings(measured: _Measured, read_retries: int, unread: list[str]) -> list[str]:
    """What the run met and got past, said once each: nothing degrades without a word."""
    out = []
    if read_retries:
        out.append(f"{read_retries} read(s) of shards failed and were tried again (a storage or network hiccup)")
    if unread:
        out.append(f"{len(unread)} shard(s) could not be read (first: {unread[0]}): named in unreadable.jsonl, "
                   "they are measured again by the next run")
    if measured.damaged:
        part, why = next(iter(measured.damaged.items()))
        out.append(f"{len(measured.damaged)} measurement part(s) failed their integrity check and were measured "
                   f"again (first: {part}: {why})")
    if measured.unread:
        out.append(f"{len(measured.unread)} shard(s) an earlier run could not read were measured again")
    return out


def load_blocklist(out: Location) -> Blocklist:
    """The run folder's blocklist (an object-store folder's is read through a local copy)."""
    if out.is_local:
        return Blocklist.load(Path(out.path))
    with tempfile.TemporaryDirectory() as tmp:
        out.child("blocklist").download(Path(tmp) / "blocklist")
        return Blocklist.load(Path(tmp))


def _write_report(work: Location, result: dict[str, Any]) -> None:
    """report.html (object stores: rendered from a local copy of what it shows, then uploaded)."""
    # imported here, in the task: the report's readers import pyarrow.dataset and with it pandas,
    # 0.27 s the driver would spend before starting Ray (measured, 2 cores)
    from audit.report import write_report

    if work.is_local:
        write_report(Path(work.path), result)
        return
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp)
        work.child("quarantine").download(local / "quarantine")
        work.child("unreadable.jsonl").download(local / "unreadable.jsonl")
        work.child("report.html").upload(write_report(local, result))


def _write_run_manifest(work: Location, config: AuditConfig, measured: _Measured, problems: list[dict]) -> None:
    """run.json: what was read and how, so lookup, takedown and `audit decide` find it again."""
    work.child("run.json").write_json({
        "version": __version__,
        "started": datetime.now(timezone.utc).isoformat(),
        "base_dir": str(config.base_dir.resolve()),
        "config": json.loads(config.model_dump_json()),
        "measuring_settings": measuring_settings(config),
        "shards": [{"shard": st.shard, "location": st.location, "index": st.index, "size": st.size,
                    "mtime_ns": st.mtime_ns, "fingerprint": st.fingerprint, "part": st.part}
                   for st in measured.states],
        "unreadable_inputs": problems,  # inputs that could not be opened at all, for `audit decide`
        "corpus_df": measured.corpus_df,
    })


def decide_run(run: Path | str, config: AuditConfig | None = None, address: str | None = None,
               out: Path | str | None = None, progress: bool = True) -> RunResult:
    """Re-judge a finished run from its kept measurements (`audit decide`), with `config`'s
    thresholds when given; measuring settings must be the run's own. `progress`: the phases'
    progress on standard error (dedup, decide, index, report).

    In place (`out` None or the run itself), the judgement it replaces (summary.json, run.json) is
    kept under judgements/. With `out`, a new finished run folder is written there and `run` is
    left byte for byte: the measurements are hard-linked where one local filesystem holds both
    (their files are only ever replaced whole, never changed in place) and copied otherwise; the
    takedown state and the judgement history are copied. The new folder stands alone (lookup,
    export, decide again), whatever later happens to `run`."""
    src = location(run, Path.cwd())
    require_finished(src, "audit decide")
    if not src.child(MEASUREMENTS).is_dir():
        raise InputError(f"{src}: has no measurements/ to re-judge: run `audit run` into it again")
    manifest = run_manifest(src)
    if config is None:
        config = run_config(src, manifest)
    refused = refused_changes(manifest.get("measuring_settings", {}), config)
    if refused:  # every one named: the user fixes them all at once
        raise ConfigError(f"{', '.join(refused)}: changed since the run measured (a threshold: below what was "
                          "measured); `audit decide` only re-judges, so measure again with `audit run`")
    shards = [Shard(s["shard"], s["location"], s["index"]) for s in manifest["shards"]]
    states = [ShardState(s["shard"], s["location"], s["index"], s["size"], s["mtime_ns"], s["fingerprint"])
              for s in manifest["shards"]]
    dest = src if out is None else location(out, Path.cwd())
    in_place = dest.uri == src.uri or (dest.is_local and src.is_local and
                                       Path(dest.path).resolve() == Path(src.path).resolve())
    if not in_place and dest.is_local and src.is_local and Path(dest.path).resolve().is_relative_to(
            Path(src.path).resolve()):
        raise InputError(f"decide --out {dest}: is inside the run folder {src}, which must stay as it is: "
                         "give a folder outside it")
    with reading_run_folder(src):
        done = load_done(src.child(MEASUREMENTS))
        missing = [st.shard for st in states if st.key not in done]
        if missing:
            raise InputError(f"{src}: the measurements of shard {missing[0]} are missing ({len(missing)} in all): "
                             "run `audit run` to measure them")
        checked = check_done(src.child(MEASUREMENTS), done, [st.key for st in states], keep_unread=True)
        if checked.damaged:
            part, why = next(iter(checked.damaged.items()))
            raise InputError(f"{src.child(MEASUREMENTS, part)}: {why} ({len(checked.damaged)} damaged part(s) in "
                             f"all): `audit decide` judges whole measurements only: run `audit run` into {src} "
                             "again to measure those shards again (`--fresh` measures every shard)")
        if not in_place:
            start_new_run(src, dest)
            measurements = dest.child(MEASUREMENTS)
            for st in states:  # this run's parts and completion records only
                copy_tree(src.child(MEASUREMENTS, st.part), measurements.child(st.part), link=True)
                copy_tree(src.child(MEASUREMENTS, DONE, f"{st.key}.json"), measurements.child(DONE, f"{st.key}.json"),
                          link=True)
    measured = _Measured(shards, states, {st.key: ShardResult.from_record(done[st.key]["result"]) for st in states},
                         reused=len(states), corpus_df=manifest.get("corpus_df"))
    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    with Progress(enabled=progress) as meter, hold_run_folder(dest, "audit decide"):
        entry = archive_judgement(src, src.child(JUDGEMENTS)) if in_place else None
        try:
            # judging costs far less than measuring: a small run's decide never waits for Ray to start
            measured.executor = make_executor(config, address, sum(st.size or 0 for st in states), judge_only=True)
            measured.ray_seconds = measured.executor.start_seconds
            if measured.executor.uses_ray:
                meter.say(session_line())
            summary = _finish(config, dest, measured, manifest.get("unreadable_inputs", []), started, t0, meter)
        except BaseException:
            if entry is not None:  # the judgement it kept is still the run's own
                entry.delete()
            raise
    prune_judgements(dest.child(JUDGEMENTS))
    dest.child(DECIDING).delete()
    return RunResult(out=Path(dest.path) if dest.is_local else dest.uri, summary=summary)
