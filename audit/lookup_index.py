"""Lookup indexes of a run: sorted, bucketed Parquet files so a lookup reads a few row groups.

`build_lookup_indexes(run_dir)` runs after lineage/ is written and leaves `index/`:

    index/meta.json            shard numbering, passage parameters, row counts
    index/records/             lineage's lookup columns keyed by pos = shard_no << 40 | record
    index/sha256/ url/ source_id/ doc_id/   (key = 64-bit hash of the value, pos)
    index/passages/            (key = winnowed passage fingerprint, pos)

Each index folder holds files `b<bucket>.parquet` sorted by key, where the bucket is the key's
top bits (a range partition, so the files are in key order too; the records index packs
consecutive shards into buckets of about _BUCKET_ROWS rows instead) and `fences.parquet`: the key
range of every row group. A lookup hashes its value, finds the row groups whose range holds the
key (binary search over the fences), reads only those and keeps the rows whose key matches; the
records index then turns positions into lineage rows. At hundreds of millions of rows a point
lookup still reads two row groups of two small files. The build is an external sort: rows are
spilled into bucket parts as lineage streams by, then each bucket is sorted in memory alone.
"""
from __future__ import annotations

import bisect
import shutil
import tempfile
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from audit import __version__
from audit.dedup.partition import range_partition_of
from audit.io.atomic import atomic_output
from audit.io.storage import Location, location, write_parquet
from audit.job.parts import dictionary_columns
from audit.normalize import mix64
from audit.stages.passages import passage_scheme

INDEX_DIR = "index"
INDEX_FORMAT = 1
RECORD_BITS = 40                  # pos = shard_no << RECORD_BITS | record
RECORDS = "records"
KEYED = ("sha256", "url", "source_id", "doc_id")
PASSAGES = "passages"
RECORD_COLUMNS = ["doc_id", "source_id", "shard", "record", "byte_offset", "sha256", "url", "chars",
                  "verdict", "reasons"]
RECORD_TYPES = {"doc_id": pa.string(), "source_id": pa.string(), "shard": pa.string(), "record": pa.int64(),
                "byte_offset": pa.int64(), "sha256": pa.string(), "url": pa.string(), "chars": pa.int64(),
                "verdict": pa.string(), "reasons": pa.list_(pa.string())}
PASSAGE_COLUMNS = ["shard", "record", "hash", "passage_hashes"]  # of either passage layout (see passage_rows)
KEY_SCHEMA = pa.schema([("key", pa.uint64()), ("pos", pa.uint64())])
RECORDS_SCHEMA = pa.schema([("pos", pa.uint64())] + [(c, RECORD_TYPES[c]) for c in RECORD_COLUMNS])

# Sizes: a bucket file holds about this many rows (sorted in memory alone); row groups are the
# unit a lookup reads, small enough to decode in about a millisecond.
_BUCKET_ROWS = 4_000_000
_OWN_BUCKET_SHARE = 128  # a shard of _BUCKET_ROWS / this many rows or more has records buckets of its own
_SPILL_BYTES = 256 * 2**20       # buffered Arrow data a sorter holds before spilling it to parts
_KEY_GROUP_ROWS = 16_384
_RECORD_GROUP_ROWS = 4_096
_OPEN_FILES = 64                  # memory-mapped files a SortedIndex keeps open (least recently used go)


# Stable 64-bit hashes of Arrow strings, the keys of the index: a polynomial over the UTF-8 bytes
# modulo 2**64, then the splitmix64 finaliser so the top bits (the buckets) are uniform. Not
# cryptographic: a collision costs a wasted row-group read, every lookup compares the real value.
_BYTE_BASE = np.uint64(0x100000001B3)          # odd multiplier of the byte polynomial
_LEN_SALT = np.uint64(0xD6E8FEB86659FD93)


def _powers(base: np.uint64, n: int) -> np.ndarray:
    """base**0 .. base**(n-1) modulo 2**64."""
    out = np.empty(max(n, 1), dtype=np.uint64)
    out[0] = 1
    if n > 1:
        out[1:] = base
        np.cumprod(out[1:], out=out[1:])
    return out[:n] if n else out[:0]


# The polynomial is summed a slice of rows at a time, as sum((byte + 1) * B**-k) * B**(end - 1): B is
# odd, so it has an inverse modulo 2**64, and a byte's weight needs no per-byte exponent (3x faster
# than per-byte powers over the whole column, with temporaries that stay in cache).
_BYTE_BASE_INV = np.uint64(pow(int(_BYTE_BASE), -1, 1 << 64))
_HASH_SLICE_BYTES = 1 << 19
_POWER_TABLES: dict[int, np.ndarray] = {}


def _power_table(base: np.uint64, n: int) -> np.ndarray:
    """base**0 .. base**(n-1) modulo 2**64, from a table kept for the process."""
    have = _POWER_TABLES.get(int(base))
    if have is None or len(have) < n:
        have = _POWER_TABLES[int(base)] = _powers(base, max(n, _HASH_SLICE_BYTES))
    return have[:n]


def hash_strings(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A uint64 hash of every string (nulls hash like the empty string; callers drop them)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if not (pa.types.is_string(values.type) or pa.types.is_binary(values.type)):
        values = values.cast(pa.string())
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int32)[values.offset:values.offset + n + 1].astype(np.int64)
    starts, ends = offsets[:-1], offsets[1:]
    lengths = ends - starts
    h = np.zeros(n, dtype=np.uint64)
    if offsets[-1] > offsets[0]:
        data = np.frombuffer(values.buffers()[2], dtype=np.uint8)
        a = 0
        while a < n:  # rows [a, b) hold about _HASH_SLICE_BYTES (at least one row)
            b = max(a + 1, int(np.searchsorted(ends, starts[a] + _HASH_SLICE_BYTES, side="right")))
            lo, hi = int(starts[a]), int(ends[b - 1])
            if hi > lo:
                weighted = (data[lo:hi].astype(np.uint64) + np.uint64(1)) * _power_table(_BYTE_BASE_INV, hi - lo)
                rel_start, rel_end = starts[a:b] - lo, ends[a:b] - lo
                nonempty = rel_end > rel_start
                sums = np.add.reduceat(weighted, rel_start[nonempty])
                h[a:b][nonempty] = sums * _power_table(_BYTE_BASE, hi - lo)[rel_end[nonempty] - 1]
            a = b
    return mix64(h ^ (lengths.astype(np.uint64) * _LEN_SALT))


def _hash_bucket_bits(rows: int) -> int:
    """Top key bits to bucket by so a bucket holds about _BUCKET_ROWS rows."""
    buckets = max(1, -(-rows // _BUCKET_ROWS))
    return int(np.ceil(np.log2(buckets))) if buckets > 1 else 0


def _record_starts(rows_per_shard: list[int]) -> list[int]:
    """First position of each records bucket: consecutive shards packed into buckets of about
    _BUCKET_ROWS rows, a shard bigger than that split by record ranges (thousands of small
    shards make few files). A shard of _BUCKET_ROWS / _OWN_BUCKET_SHARE rows or more shares its
    bucket(s) with no other shard, so the job's decide task that judged it can write its bucket
    (IndexLayout.own_bucket)."""
    bounds = [0]
    filled = 0
    alone = False  # the bucket being filled holds a shard that keeps it to itself
    for no, rows in enumerate(rows_per_shard):
        big = rows >= _BUCKET_ROWS // _OWN_BUCKET_SHARE
        if filled and (big or alone or filled + rows > _BUCKET_ROWS):
            bounds.append(int(positions(np.array([no]), np.array([0]))[0]))
            filled = 0
        alone = big
        cuts = list(range(_BUCKET_ROWS, rows, _BUCKET_ROWS))
        bounds.extend(int(b) for b in positions(np.full(len(cuts), no), np.array(cuts, dtype=np.int64)))
        filled = rows - cuts[-1] if cuts else filled + rows
    return bounds


@dataclass(frozen=True)
class IndexLayout:
    """How a run's index is cut into bucket files; the one-process build and the job's
    distributed build share it, so both write the same files.

    `shards`: lineage's shard names in order (shard_no = place in the list); `record_starts`: the
    first position of each records bucket; `bits`: top key bits bucketing each keyed index.
    """

    shards: tuple[str, ...]
    record_starts: tuple[int, ...]
    bits: tuple[tuple[str, int], ...]

    @classmethod
    def plan(cls, shard_rows: dict[str, int], passage_rows: int) -> "IndexLayout":
        """From lineage rows per shard and the passage dataset's rows (0: no passage index)."""
        shards = sorted(s for s, n in shard_rows.items() if n > 0)
        key_bits = _hash_bucket_bits(sum(shard_rows[s] for s in shards))
        bits = [(k, key_bits) for k in KEYED] + ([(PASSAGES, _hash_bucket_bits(passage_rows))] if passage_rows else [])
        return cls(tuple(shards), tuple(_record_starts([shard_rows[s] for s in shards])), tuple(bits))

    @property
    def keyed(self) -> list[str]:
        """The key-hash indexes, in a fixed order (their partition numbers follow it)."""
        return [k for k, _ in self.bits]

    def buckets(self, name: str) -> int:
        """Number of buckets of index `name`."""
        return len(self.record_starts) if name == RECORDS else 1 << dict(self.bits)[name]

    def own_bucket(self, no: int) -> int | None:
        """The records bucket that holds the rows of shard number `no` and no other's, when one
        does (most shards of 1/_OWN_BUCKET_SHARE to 1 times _BUCKET_ROWS rows): the job's decide
        task writes it."""
        first = int(positions(np.array([no]), np.array([0]))[0])
        nxt = int(positions(np.array([no + 1]), np.array([0]))[0])
        b = bisect.bisect_left(self.record_starts, first)
        if b == len(self.record_starts) or self.record_starts[b] != first:
            return None  # shares a bucket with the shards before it
        end = self.record_starts[b + 1] if b + 1 < len(self.record_starts) else None
        if end == nxt or (end is None and no == len(self.shards) - 1):
            return b
        return None

    def bucket_of(self, name: str, keys: np.ndarray) -> np.ndarray:
        """Bucket of each key (records: of each position); never decreases with the key."""
        if name == RECORDS:
            starts = np.array(self.record_starts, dtype=np.uint64)
            return (np.searchsorted(starts, keys, side="right") - 1).astype(np.uint64)
        return range_partition_of(keys, dict(self.bits)[name])

    def partition_base(self) -> dict[str, int]:
        """First partition number of each keyed index, when all keyed buckets are partitions of one shuffle."""
        base, at = {}, 0
        for name in self.keyed:
            base[name] = at
            at += self.buckets(name)
        return base

    def shard_array(self) -> pa.Array:
        return pa.array(list(self.shards), pa.string())


def write_bucket(table: pa.Table, folder: Location, name: str, bucket: int) -> pa.Table:
    """Sort one bucket's rows and write `b<bucket>.parquet`; returns its fences
    (file, row_group, lo, hi, rows), each row group's key range."""
    key = "pos" if name == RECORDS else "key"
    group_rows = _RECORD_GROUP_ROWS if name == RECORDS else _KEY_GROUP_ROWS
    keys = table.column(key).to_numpy()
    # records read in position order (the job's lineage parts) are written as they are, chunks and all
    if not (key == "pos" and (len(keys) < 2 or bool((keys[1:] > keys[:-1]).all()))):
        order = np.lexsort((table.column("pos").to_numpy(), keys))  # ties (same key) in position order
        table = table.take(pa.array(order)).combine_chunks()
        keys = keys[order]
    file = f"b{bucket:016x}.parquet"
    folder.mkdir()
    with atomic_output(folder.child(file)) as sink:  # straight to the file: no copy of it in memory
        # keys and positions are all distinct and near random: no dictionary, and lz4, as zstd
        # only shrinks them 12% for 4x its time
        pq.write_table(table, sink, row_group_size=group_rows, write_statistics=False,
                       compression="zstd" if name == RECORDS else "lz4",
                       use_dictionary=dictionary_columns(table) if name == RECORDS else False)
    starts = np.arange(0, len(keys), group_rows)
    ends = np.minimum(starts + group_rows, len(keys))
    return pa.table({"file": pa.array([file] * len(starts), pa.string()),
                     "row_group": pa.array(np.arange(len(starts)), pa.int32()),
                     "lo": pa.array(keys[starts], pa.uint64()), "hi": pa.array(keys[ends - 1], pa.uint64()),
                     "rows": pa.array(ends - starts, pa.int64())})


_FENCES = pa.schema([("file", pa.string()), ("row_group", pa.int32()), ("lo", pa.uint64()), ("hi", pa.uint64()),
                     ("rows", pa.int64())])


def write_fences(folder: Location, fences: list[pa.Table]) -> int:
    """fences.parquet of one index from its buckets' fences, in key order; returns the index's rows."""
    table = pa.concat_tables([f.cast(_FENCES) for f in fences]) if fences else _FENCES.empty_table()
    table = table.sort_by([("file", "ascending"), ("row_group", "ascending")])  # b<hex> names sort as buckets do
    folder.mkdir()
    write_parquet(table.drop_columns(["rows"]), folder.child("fences.parquet"))
    return int(pc.sum(table.column("rows")).as_py() or 0)


def write_meta(folder: Location, layout: IndexLayout, counts: dict[str, int]) -> None:
    """index/meta.json, written last: an index folder without it is not opened."""
    folder.child("meta.json").write_json({
        "format": INDEX_FORMAT, "tool_version": __version__,
        "built": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "record_bits": RECORD_BITS, "shards": list(layout.shards), "rows": counts,
        "passages": passage_scheme() if PASSAGES in counts else None,
    })


class BucketSorter:
    """External sort by key of one index: rows spill into per-bucket parts (Arrow IPC files in a
    local scratch folder), each bucket is sorted alone at the end and written to `folder`."""

    def __init__(self, folder: Location, scratch: Path, layout: IndexLayout, name: str) -> None:
        self.folder, self.layout, self.name = folder, layout, name
        self.schema = RECORDS_SCHEMA if name == RECORDS else KEY_SCHEMA
        self.key = "pos" if name == RECORDS else "key"
        self.parts_dir = scratch / name
        self.parts_dir.mkdir(parents=True, exist_ok=True)
        self.buffers: dict[int, list[pa.Table]] = {}
        self.parts: dict[int, list[Path]] = {}
        self.buffered = 0  # bytes
        self.rows = 0

    def add(self, table: pa.Table) -> None:
        if table.num_rows == 0:
            return
        keys = table.column(self.key).to_numpy()
        buckets = self.layout.bucket_of(self.name, keys)
        if buckets.min() == buckets.max():
            self.buffers.setdefault(int(buckets[0]), []).append(table)
        else:
            order = np.argsort(buckets, kind="stable")
            sorted_buckets = buckets[order]
            table = table.take(pa.array(order))
            cuts = np.flatnonzero(np.diff(sorted_buckets)) + 1
            bounds = np.concatenate([[0], cuts, [len(order)]])
            for a, b in zip(bounds[:-1], bounds[1:]):
                self.buffers.setdefault(int(sorted_buckets[a]), []).append(table.slice(int(a), int(b - a)))
        self.buffered += table.nbytes
        self.rows += table.num_rows
        if self.buffered >= _SPILL_BYTES:
            self._spill()

    def _spill(self) -> None:
        for bucket, tables in self.buffers.items():
            part = self.parts_dir / f"{bucket:016x}-{len(self.parts.get(bucket, [])):05d}.arrow"
            # Arrow IPC: the cheapest format to write and read back whole.
            with pa.OSFile(str(part), "wb") as sink, pa.ipc.new_file(sink, self.schema) as w:
                for t in tables:
                    w.write_table(t)
            self.parts.setdefault(bucket, []).append(part)
        self.buffers.clear()
        self.buffered = 0

    def finish(self) -> list[pa.Table]:
        """Sort and write every bucket; returns their fences."""
        fences = []
        for bucket in sorted(set(self.buffers) | set(self.parts)):
            tables = list(self.buffers.get(bucket, []))
            for part in self.parts.get(bucket, []):
                with pa.memory_map(str(part)) as src:
                    tables.append(pa.ipc.open_file(src).read_all())
            fences.append(write_bucket(pa.concat_tables(tables) if len(tables) > 1 else tables[0], self.folder,
                                       self.name, bucket))
            for part in self.parts.get(bucket, []):
                part.unlink()
        self.buffers.clear()
        return fences


def build_in_one(folder: Location, layout: IndexLayout, lineage: list[str], passages: list[str],
                 fs: Any) -> dict[str, int]:
    """The whole index of a run into `folder`, in this process: each lineage part read once (its
    record rows and its keys), then the passage fingerprints; an external sort bounds memory.
    Writes every index's buckets and fences, then meta.json; returns rows per index. The job's
    bucket-per-task build (audit/job/index_pass.py) writes the same files from the same layout."""
    from audit.job.parts import read_part

    shards = layout.shard_array()
    with tempfile.TemporaryDirectory(prefix="audit-index-") as scratch:
        sorters = {name: BucketSorter(folder.child(name), Path(scratch), layout, name)
                   for name in [RECORDS, *KEYED]}
        for path in lineage:
            for t in read_part(path, fs, RECORD_COLUMNS):
                pos = pos_of(t, shards)
                sorters[RECORDS].add(record_rows(t, pos))
                for k in KEYED:
                    if k in t.column_names:
                        sorters[k].add(key_rows(t.column(k), pos))
        if PASSAGES in layout.keyed:
            sorters[PASSAGES] = BucketSorter(folder.child(PASSAGES), Path(scratch), layout, PASSAGES)
            for path in passages:
                for t in read_part(path, fs, PASSAGE_COLUMNS):
                    sorters[PASSAGES].add(passage_rows(t, shards))
        fences = {name: sorter.finish() for name, sorter in sorters.items()}
    counts = {name: write_fences(folder.child(name), fences[name]) for name in [RECORDS, *layout.keyed]}
    write_meta(folder, layout, counts)
    return counts


def shard_rows(lineage: list[str], fs: Any) -> dict[str, int]:
    """Lineage rows per shard, by shard name (the `shard` column alone is read)."""
    from audit.job.parts import read_part

    rows: dict[str, int] = {}
    for path in lineage:
        for t in read_part(path, fs, ["shard"]):
            for vc in pc.value_counts(t.column("shard")).to_pylist():
                if vc["values"] is not None:
                    rows[vc["values"]] = rows.get(vc["values"], 0) + vc["counts"]
    return dict(sorted(rows.items()))


def positions(shard_no: pa.Array | np.ndarray, record: pa.Array | np.ndarray) -> np.ndarray:
    """pos = shard_no << RECORD_BITS | record, as uint64."""
    s = np.asarray(shard_no, dtype=np.uint64)
    r = np.asarray(record, dtype=np.uint64)
    return (s << np.uint64(RECORD_BITS)) | r


def pos_of(table: pa.Table, shards: pa.Array) -> np.ndarray:
    shard_no = pc.index_in(table.column("shard"), value_set=shards).to_numpy(zero_copy_only=False)
    return positions(shard_no, table.column("record").to_numpy(zero_copy_only=False))


def record_rows(table: pa.Table, pos: np.ndarray) -> pa.Table:
    cols: dict[str, pa.Array | pa.ChunkedArray] = {"pos": pa.array(pos, pa.uint64())}
    for c in RECORD_COLUMNS:
        cols[c] = table.column(c).cast(RECORD_TYPES[c]) if c in table.column_names else pa.nulls(
            table.num_rows, RECORD_TYPES[c])
    return pa.table(cols, schema=RECORDS_SCHEMA)


def key_rows(values: pa.ChunkedArray, pos: np.ndarray) -> pa.Table:
    valid = pc.is_valid(values).to_numpy(zero_copy_only=False)
    keys = hash_strings(values.filter(pa.array(valid)))
    return pa.table({"key": pa.array(keys, pa.uint64()), "pos": pa.array(pos[valid], pa.uint64())}, schema=KEY_SCHEMA)


def passage_rows(table: pa.Table, shards: pa.Array) -> pa.Table:
    """(key, pos) rows from either exploded passages (hash, shard, record) or list `passage_hashes`."""
    # Staging rows of whole-file faults have no record; shards unknown to lineage have no number.
    table = table.filter(pc.and_(pc.is_valid(table.column("record")),
                                 pc.is_in(table.column("shard"), value_set=shards)))
    pos = pos_of(table, shards)
    if "passage_hashes" in table.column_names:
        lists = table.column("passage_hashes").combine_chunks()
        keys = pc.list_flatten(lists).to_numpy(zero_copy_only=False)
        owner = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False)
        return pa.table({"key": pa.array(keys, pa.uint64()), "pos": pa.array(pos[owner], pa.uint64())},
                        schema=KEY_SCHEMA)
    keep = pc.is_valid(table.column("hash"))
    return pa.table({"key": table.column("hash").filter(keep).cast(pa.uint64()),
                     "pos": pa.array(pos[keep.to_numpy(zero_copy_only=False)], pa.uint64())}, schema=KEY_SCHEMA)


def build_lookup_indexes(run_dir: Path, passages: Path | list[Path] | None = None) -> Path | None:
    """Build `run_dir/index/` from `run_dir/lineage/` and the passage fingerprints.

    `passages` is a Parquet dataset folder (or a list of Parquet files) of either (hash uint64, shard, record[, doc_id]) rows or
    (shard, record, passage_hashes list<uint64>) rows (the pipeline's staging data will do);
    default `run_dir/passages/`, which is removed once indexed (index/passages/ holds it sorted).
    Returns the index folder, or None when the run has no lineage. The folder is built aside and
    swapped in whole, so a lookup never sees half an index.
    """
    run_dir = Path(run_dir)
    lineage = run_dir / "lineage"
    if not lineage.is_dir():
        return None
    default_passages = passages is None
    if passages is None:
        passages = run_dir / "passages"
    passage_files = sorted(Path(passages).glob("*.parquet")) if isinstance(passages, (str, Path)) \
        else [Path(p) for p in passages]
    lineage_files = [str(f) for f in sorted(lineage.glob("*.parquet"))]
    fs = pafs.LocalFileSystem()
    work = run_dir / f".index-{uuid.uuid4().hex[:10]}"
    work.mkdir()
    try:
        p_rows = sum(pq.ParquetFile(f).metadata.num_rows for f in passage_files)
        layout = IndexLayout.plan(shard_rows(lineage_files, fs), p_rows)
        build_in_one(location(work), layout, lineage_files, [str(f) for f in passage_files], fs)
        target = run_dir / INDEX_DIR
        old = run_dir / f".index-old-{uuid.uuid4().hex[:10]}"
        if target.exists():
            target.rename(old)
        work.rename(target)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if default_passages and isinstance(passages, Path) and passages.is_dir():
        shutil.rmtree(passages, ignore_errors=True)
    return run_dir / INDEX_DIR


class SortedIndex:
    """One index folder: find the rows of given keys by reading only the row groups that hold them."""

    def __init__(self, folder: Location, schema: pa.Schema) -> None:
        self.folder, self.schema = folder, schema
        f = pq.read_table(folder.child("fences.parquet").open_input())
        self.files = f.column("file").to_pylist()
        self.groups = f.column("row_group").to_numpy()
        self.lo = f.column("lo").to_numpy()
        self.hi = f.column("hi").to_numpy()
        self._open: OrderedDict[str, pq.ParquetFile] = OrderedDict()  # least recently used first
        self.reads = 0  # row groups read, for the benchmark

    def _file(self, name: str) -> pq.ParquetFile:
        pf = self._open.get(name)
        if pf is not None:
            self._open.move_to_end(name)
            return pf
        if len(self._open) >= _OPEN_FILES:
            self._open.popitem(last=False)[1].close()
        where = self.folder.child(name)
        # an object store: ranged reads of the row groups a lookup needs, never the whole file
        pf = pq.ParquetFile(where.path, memory_map=True) if where.is_local else pq.ParquetFile(where.open_input())
        self._open[name] = pf
        return pf

    def _group(self, i: int, columns: list[str] | None) -> pa.Table:
        pf = self._file(self.files[i])
        self.reads += 1
        return pf.read_row_group(int(self.groups[i]), columns=columns)

    def _groups_for(self, keys: np.ndarray) -> list[int]:
        """Row groups whose key range holds at least one of `keys`."""
        if len(self.lo) == 0 or len(keys) == 0:
            return []
        first = np.searchsorted(self.hi, keys, side="left")   # first group whose hi >= key
        last = np.searchsorted(self.lo, keys, side="right")   # groups before this have lo <= key
        wanted: set[int] = set()
        for a, b in zip(first.tolist(), last.tolist()):
            wanted.update(range(a, b))
        return sorted(wanted)

    def find(self, keys: np.ndarray | list[int], key: str = "key", columns: list[str] | None = None) -> pa.Table:
        """Every row whose `key` column is one of `keys`."""
        keys = np.unique(np.asarray(keys, dtype=np.uint64))
        parts = []
        want = pa.array(keys, pa.uint64())
        for g in self._groups_for(keys):
            t = self._group(g, columns)
            t = t.filter(pc.is_in(t.column(key), value_set=want))
            if t.num_rows:
                parts.append(t)
        return pa.concat_tables(parts) if parts else self._empty(columns)

    def range(self, lo: int, hi: int, key: str = "key", columns: list[str] | None = None) -> pa.Table:
        """Every row with lo <= key < hi."""
        if hi <= lo or len(self.lo) == 0:
            return self._empty(columns)
        a = int(np.searchsorted(self.hi, np.uint64(lo), side="left"))
        b = int(np.searchsorted(self.lo, np.uint64(hi - 1), side="right"))
        parts = []
        for g in range(a, b):
            t = self._group(g, columns)
            k = t.column(key)
            t = t.filter(pc.and_(pc.greater_equal(k, pa.scalar(lo, pa.uint64())),
                                 pc.less(k, pa.scalar(hi, pa.uint64()))))
            if t.num_rows:
                parts.append(t)
        return pa.concat_tables(parts) if parts else self._empty(columns)

    def _empty(self, columns: list[str] | None) -> pa.Table:
        schema = pa.schema([self.schema.field(c) for c in columns]) if columns else self.schema
        return schema.empty_table()


@dataclass
class LookupIndex:
    """The indexes of one run folder, opened lazily."""

    folder: Location
    meta: dict

    @classmethod
    def open(cls, run_dir: Path | Location) -> "LookupIndex | None":
        """The run's index (a local folder or a Location on any filesystem), or None when it has none
        (or one of an unknown format)."""
        folder = (run_dir if isinstance(run_dir, Location) else location(Path(run_dir).absolute())).child(INDEX_DIR)
        try:
            meta = folder.child("meta.json").read_json()
        except (OSError, ValueError):
            return None
        if meta.get("format") != INDEX_FORMAT:
            return None
        return cls(folder, meta)

    def __post_init__(self) -> None:
        self._indexes: dict[str, SortedIndex] = {}
        self.shard_no = {s: i for i, s in enumerate(self.meta.get("shards", []))}

    def has(self, name: str) -> bool:
        return self.folder.child(name, "fences.parquet").is_file()

    def index(self, name: str) -> SortedIndex:
        if name not in self._indexes:
            self._indexes[name] = SortedIndex(self.folder.child(name), RECORDS_SCHEMA if name == RECORDS else KEY_SCHEMA)
        return self._indexes[name]

    def records_at(self, pos: np.ndarray | list[int]) -> pa.Table:
        """Lineage rows (RECORDS_SCHEMA) of the given positions."""
        return self.index(RECORDS).find(pos, key="pos")

    def records_by(self, name: str, value: str) -> pa.Table:
        """Lineage rows whose column `name` (sha256, url, source_id, doc_id) equals `value`."""
        hits = self.index(name).find(hash_strings(pa.array([value], pa.string())))
        rows = self.records_at(hits.column("pos").to_numpy()) if hits.num_rows else RECORDS_SCHEMA.empty_table()
        return rows.filter(pc.equal(rows.column(name), value)) if rows.num_rows else rows

    def records_in_shard(self, shard: str, start: int, stop: int | None) -> pa.Table:
        """Lineage rows of `shard` with start <= record < stop (stop None: to the end)."""
        no = self.shard_no.get(shard)
        if no is None:
            return RECORDS_SCHEMA.empty_table()
        base = int(positions(np.array([no]), np.array([0]))[0])
        span = 1 << RECORD_BITS  # positions of one shard: never reach into the next shard's
        start, stop = min(max(start, 0), span), span if stop is None else min(max(stop, 0), span)
        return self.index(RECORDS).range(base + start, base + stop, key="pos")

    def passage_candidates(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(pos, matching fingerprints) of every record sharing a fingerprint with `keys`."""
        if not self.has(PASSAGES) or len(keys) == 0:
            return np.zeros(0, np.uint64), np.zeros(0, np.int64)
        hits = self.index(PASSAGES).find(keys)
        if hits.num_rows == 0:
            return np.zeros(0, np.uint64), np.zeros(0, np.int64)
        pos, counts = np.unique(hits.column("pos").to_numpy(), return_counts=True)
        return pos, counts
