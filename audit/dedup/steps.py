"""The global dedup pass as steps over Arrow tables and arrays.

Each step is a plain function of a table (a batch, a partition) or of the measurement parts' band
keys. The job (audit.job.global_dedup) runs them as tasks over partitions; the one-partition run
(`one_partition`) calls the very same steps with one partition, in this process. Records are
named by their input order (audit.dedup.exact.global_order), so a component's smallest node is
the record both runs keep, and their results are equal.

    base        measurement rows with a record, and their order
    exact       keyed by exact key -> each partition's exact duplicates
    band rows   each part's band keys as arrays (`band_rows`, ~90 bytes a record)
    band pairs  each band's buckets (a partition of its keys): candidates, exact duplicates
                stepping aside, confirmed by their shared band keys (`band_pairs`)
    components  star edges around each component's earliest record (of confirmed pairs only)
    label       records and confirmed pairs take their component, keyed by it
    resolve     each partition resolves its whole components: duplicates/ rows
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.dedup.components import star_edges
from audit.dedup.exact import exact_pairs, global_order, key_bytes
from audit.dedup.minhash import bands_of
from audit.dedup.partition import partition_of, range_partition_of
from audit.dedup.rule import bucket_edges, confirmed, estimated_jaccard, repeated, resolve_rounds, step_aside

if TYPE_CHECKING:
    from audit.config import AuditConfig

WHERE = ["doc_id", "source_id", "shard", "shard_index", "record"]
_NODE, _EDGE, _LABEL = 0, 1, 2  # row kinds: node rows and pair rows share a shuffle
_WHERE_TYPES = {"doc_id": pa.string(), "source_id": pa.string(), "shard": pa.string(), "shard_index": pa.int32(),
                "record": pa.int64()}
HISTOGRAM = pa.schema([("kind", pa.string()), ("size", pa.int64()), ("clusters", pa.int64())])
PAIRS = pa.schema([("a", pa.int64()), ("b", pa.int64())])  # confirmed pairs, a < b (input orders)


def measured_columns(config: "AuditConfig") -> list[str]:
    """The measurement columns the pass reads (the only ones)."""
    d = config.dedup
    return WHERE + (["exact_key"] if d.exact else []) + (["minhash_bands"] if d.near else [])


def base_rows(batch: pa.Table) -> pa.Table:
    """Measurement rows of records (not of unreadable lines), with their input order."""
    batch = batch.filter(pc.is_valid(batch.column("record")))
    return batch.append_column("order", pa.array(global_order(batch), pa.int64()))


def histogram(kind: str, cluster_ids: pa.Array | pa.ChunkedArray) -> pa.Table:
    """Cluster sizes (duplicates + the kept record) -> clusters, as typed rows of `kind`."""
    sizes = Counter(n + 1 for n in Counter(cluster_ids.to_pylist()).values())
    return pa.table({"kind": pa.array([kind] * len(sizes), pa.string()),
                     "size": pa.array(list(sizes), pa.int64()), "clusters": pa.array(list(sizes.values()), pa.int64())},
                    schema=HISTOGRAM)


# ---------------------------------------------------------------- keys of a part

def key_rows(base: pa.Table, bands: int) -> dict[str, np.ndarray]:
    """A part's base rows as the arrays the exact and band steps read, by input order (90 bytes
    a record, so every step reads them from memory, Ray's object store, rather than a shuffle of
    a row per record and band): `order`; `ekey` (uint64 x 2, zero where `has_key` is not);
    `bands` (uint32, records x bands, zero where `has_bands` is not)."""
    order = base.column("order").to_numpy()
    by = np.argsort(order, kind="stable")
    base, order = base.take(pa.array(by, pa.int64())), order[by]
    n = len(order)
    out: dict[str, np.ndarray] = {"order": order, "ekey": np.zeros((n, 2), np.uint64), "has_key": np.zeros(n, bool),
                                  "bands": np.zeros((n, bands), np.uint32), "has_bands": np.zeros(n, bool)}
    if "exact_key" in base.column_names:
        col = base.column("exact_key").combine_chunks()
        out["has_key"] = has = pc.is_valid(col).to_numpy(zero_copy_only=False)
        out["ekey"][has] = key_bytes(col.filter(pa.array(has))).view("<u8").reshape(-1, 2)
    if "minhash_bands" in base.column_names:
        col = base.column("minhash_bands")
        out["has_bands"] = has = pc.is_valid(col).to_numpy(zero_copy_only=False)
        out["bands"][has] = bands_of(col.filter(pa.array(has)), bands)
    return out


def range_bits(partitions: int) -> int:
    """Range-partition bits for at least `partitions` partitions (a power of two)."""
    return max(0, int(partitions - 1).bit_length())


# ---------------------------------------------------------------- exact

def exact_of(parts: list[dict[str, np.ndarray]], part: int, partitions: int) -> pa.Table:
    """Exact duplicates among the exact keys in range partition `part` (of 2^range_bits(partitions)):
    (dup, kept) input orders, the kept record the earliest with that key."""
    bits = range_bits(partitions)
    keys, order = [], []
    for p in parts:
        sel = p["has_key"] & (range_partition_of(p["ekey"][:, 0], bits) == part) if bits else p["has_key"]
        keys.append(p["ekey"][sel])
        order.append(p["order"][sel])
    k = np.concatenate([np.zeros((0, 2), np.uint64), *keys])
    o = np.concatenate([np.zeros(0, np.int64), *order])
    dup, kept = exact_pairs(k.view(np.uint8).reshape(-1, 16), o)
    return pa.table({"dup": pa.array(o[dup], pa.int64()), "kept": pa.array(o[kept], pa.int64())})


def exact_rows(nodes: pa.Table, pairs: pa.Table) -> pa.Table:
    """Exact duplicates (dup, kept orders) as duplicates/ rows, located by `nodes` (base rows
    holding at least every record they name)."""
    nodes = nodes.sort_by("order")
    o = nodes.column("order").to_numpy()
    dup = np.searchsorted(o, pairs.column("dup").to_numpy())
    kept = np.searchsorted(o, pairs.column("kept").to_numpy())
    kept_ids = nodes.column("doc_id").combine_chunks().take(pa.array(kept, pa.int64()))
    return nodes.select(WHERE).take(pa.array(dup, pa.int64())) \
        .append_column("kind", pa.array(["exact"] * len(dup), pa.string())) \
        .append_column("cluster_id", pc.binary_join_element_wise("exact-", kept_ids, "")) \
        .append_column("kept_doc_id", kept_ids) \
        .append_column("similarity", pa.array(np.ones(len(dup)), pa.float64()))


# ---------------------------------------------------------------- near: confirmed pairs

def _bands_at(parts: list[dict[str, np.ndarray]], src: np.ndarray, row: np.ndarray, width: int) -> np.ndarray:
    """Band keys (records x bands) of rows `row` of parts `src`."""
    out = np.empty((len(row), width), np.uint32)
    for i in np.unique(src):
        at = src == i
        out[at] = parts[i]["bands"][row[at]]
    return out


def band_pairs(parts: list[dict[str, np.ndarray]], band: int, partitions: int, bands: int,
               min_shared: int) -> pa.Table:
    """The confirmed pairs (a < b, input orders) of one band's buckets: records sharing the band
    key are candidates (exact duplicates stepping aside), confirmed when they share `min_shared`
    of their `bands` keys. `parts`: `key_rows` of every measurement part. The keys go through
    in range partitions one after the other (2^range_bits(partitions)), so a task holds a partition's."""
    bits = range_bits(partitions)
    found = [PAIRS.empty_table()]
    for part in range(1 << bits):
        keys, rows = [], []
        for p in parts:
            k = p["bands"][:, band]
            sel = p["has_bands"] & (range_partition_of(k.astype(np.uint64) << np.uint64(32), bits) == part) \
                if bits else p["has_bands"]
            rows.append(np.flatnonzero(sel))
            keys.append(k[rows[-1]])
        k = np.concatenate([np.zeros(0, np.uint32), *keys])
        at = repeated(k)  # a bucket of one makes no pair and steps nothing aside: the rest only
        starts = np.cumsum([0] + [len(x) for x in keys])
        s = np.searchsorted(starts, at, side="right") - 1  # the part of each
        r = at - starts[s]
        o, e = np.empty(len(at), np.int64), np.empty(len(at), np.uint64)
        for i in np.unique(s):
            mine = s == i
            r[mine] = rows[i][r[mine]]
            p = parts[i]
            head = p["ekey"][r[mine], 0]
            # |1 keeps a real key from reading as 0, which marks "no exact key" (never steps aside)
            o[mine], e[mine] = p["order"][r[mine]], np.where(head != 0, head | np.uint64(1), np.uint64(0))
        found.append(_confirmed(parts, k[at], o, e, s, r, bands, min_shared))
    return distinct_pairs(found)


def _confirmed(parts: list[dict[str, np.ndarray]], k: np.ndarray, o: np.ndarray, e: np.ndarray, s: np.ndarray,
               r: np.ndarray, bands: int, min_shared: int) -> pa.Table:
    """Confirmed pairs of the buckets of keys `k` (orders `o`, exact heads `e`, rows `r` of parts `s`)."""
    keep = step_aside(k, o, e)
    at = np.arange(len(k))[keep]
    a, b = bucket_edges(k[keep], at, o[keep])  # rows of the candidates
    ok = (o[a] != o[b]) & confirmed(_bands_at(parts, s[a], r[a], bands), _bands_at(parts, s[b], r[b], bands),
                                    min_shared)
    return pa.table({"a": pa.array(np.minimum(o[a], o[b])[ok], pa.int64()),
                     "b": pa.array(np.maximum(o[a], o[b])[ok], pa.int64())})


def distinct_pairs(tables: list[pa.Table]) -> pa.Table:
    """The pairs of every band and partition, each once (sorted)."""
    t = pa.concat_tables([PAIRS.empty_table(), *tables])
    ab = np.stack([t.column("a").to_numpy(), t.column("b").to_numpy()], axis=1)
    ab = np.unique(ab, axis=0) if len(ab) else ab.reshape(0, 2)
    return pa.table({"a": pa.array(ab[:, 0], pa.int64()), "b": pa.array(ab[:, 1], pa.int64())})


def named(pairs: list[pa.Table]) -> np.ndarray:
    """The orders (sorted, distinct) of the records that pairs name (confirmed or exact)."""
    return np.unique(np.concatenate([np.zeros(0, np.int64), *(t.column(c).to_numpy() for t in pairs
                                                                for c in t.column_names)]))


def involved(base: pa.Table, orders: np.ndarray) -> pa.Table:
    """The base rows of records `orders` (sorted): the only ones the rest of the pass needs."""
    o = base.column("order").to_numpy()
    at = np.minimum(np.searchsorted(orders, o), max(len(orders) - 1, 0))
    return base.filter(pa.array((orders[at] == o) if len(orders) else np.zeros(len(o), bool)))


# ---------------------------------------------------------------- near: label and resolve

def _rows(kind: int, u: np.ndarray, v: np.ndarray | None, partitions: int, bands: pa.Array | None = None,
          where: pa.Table | None = None) -> pa.Table:
    """Rows of one shuffle: kind, u (the key, partitioned on), v, band keys and the record's
    location columns (null where not carried)."""
    n = len(u)
    cols: dict[str, Any] = {
        "part": partition_of(u, partitions), "kind": pa.array(np.full(n, kind, np.int8)),
        "u": pa.array(u, pa.int64()), "v": pa.array(v if v is not None else np.full(n, -1, np.int64), pa.int64()),
        "bands": bands.cast(pa.binary()) if bands is not None else pa.nulls(n, pa.binary())}
    for name, t in _WHERE_TYPES.items():
        cols[name] = where.column(name).cast(t) if where is not None else pa.nulls(n, t)
    return pa.table(cols)


def node_rows(batch: pa.Table, partitions: int) -> pa.Table:
    """Base rows with band keys -> node rows keyed by the record's order, with the location
    columns the resolve step writes."""
    batch = batch.filter(pc.is_valid(batch.column("minhash_bands")))
    return _rows(_NODE, batch.column("order").to_numpy(), None, partitions, batch.column("minhash_bands"),
                 batch.select(WHERE))



def label_rows(stars: pa.Table, partitions: int) -> pa.Table:
    """Star edges (a = smallest node, b = node) -> label rows: each node keyed by itself, v = its component."""
    a, b = stars.column("a").to_numpy(), stars.column("b").to_numpy()
    return _rows(_LABEL, np.concatenate([b, a]), np.concatenate([a, a]), partitions)


def confirmed_rows(pairs: pa.Table, partitions: int) -> pa.Table:
    """Confirmed pairs -> pair rows keyed by a (the resolve step's shuffle)."""
    return _rows(_EDGE, pairs.column("a").to_numpy(), pairs.column("b").to_numpy(), partitions)


def label(group: pa.Table, partitions: int) -> pa.Table:
    """Partition by node: nodes and confirmed pairs take their component; re-keyed by it."""
    kind = group.column("kind")
    labels = group.filter(pc.equal(kind, _LABEL))
    lu, lv = labels.column("u").to_numpy(), labels.column("v").to_numpy()
    by = np.argsort(lu, kind="stable")
    lu, lv = lu[by], lv[by]
    out = []
    for k in (_NODE, _EDGE):
        rows = group.filter(pc.equal(kind, k))
        keys = rows.column("u").to_numpy()
        at = np.minimum(np.searchsorted(lu, keys), max(len(lu) - 1, 0))
        found = (lu[at] == keys) if len(lu) else np.zeros(len(keys), bool)
        rows = rows.filter(pa.array(found))
        comp = lv[at][found] if len(lu) else np.zeros(0, np.int64)
        out.append(rows.set_column(0, "part", pa.array(partition_of(comp, partitions))))
    return pa.concat_tables(out)


def resolve(group: pa.Table, config: "AuditConfig") -> pa.Table:
    """Partition by component: its whole components resolved by the rule; duplicates/ rows."""
    kind = group.column("kind")
    nodes = group.filter(pc.equal(kind, _NODE)).sort_by("u")
    pairs = group.filter(pc.equal(kind, _EDGE))
    order = nodes.column("u").to_numpy()
    lo = np.searchsorted(order, pairs.column("u").to_numpy())
    hi = np.searchsorted(order, pairs.column("v").to_numpy())
    d = config.dedup
    dup_rows, kept_rows, same = resolve_rounds(lo, hi, bands_of(nodes.column("bands"), d.bands), order,
                                               d.min_shared_bands)
    ids = nodes.column("doc_id").combine_chunks()
    kept = ids.take(pa.array(kept_rows, pa.int64()))
    sim = np.round(estimated_jaccard(same, d.bands, d.rows), 4)
    return nodes.select(WHERE).take(pa.array(dup_rows, pa.int64())) \
        .append_column("kind", pa.array(["near"] * len(dup_rows), pa.string())) \
        .append_column("cluster_id", pc.binary_join_element_wise("near-", kept, "")) \
        .append_column("kept_doc_id", kept) \
        .append_column("similarity", pa.array(sim, pa.float64()))


# ---------------------------------------------------------------- near: in one partition

def near_of_pairs(base: pa.Table, pairs: pa.Table, config: "AuditConfig") -> pa.Table:
    """Confirmed pairs and the base rows of their records -> resolved near duplicates (duplicates/
    rows), in one partition: components by union-find, then the label and resolve steps."""
    stars = star_edges(pairs)
    labelled = label(pa.concat_tables([node_rows(base, 1), label_rows(stars, 1), confirmed_rows(pairs, 1)]), 1)
    return resolve(labelled, config)


# ---------------------------------------------------------------- the one-partition run

def one_partition(table: pa.Table, config: "AuditConfig") -> tuple[pa.Table | None, pa.Table | None]:
    """The pass over all records in this process: every step above with one partition, components
    by union-find. `table`: the measurement columns (`measured_columns`) of every record. Returns
    (exact duplicates, near duplicates) as duplicates/ rows; None for a kind that is off."""
    d = config.dedup
    base = base_rows(table)
    parts = [key_rows(base, d.bands)]
    exact = exact_of(parts, 0, 1) if d.exact else None
    near = band_pairs_all(parts, 1, d.bands, d.min_shared_bands) if d.near else None
    nodes = involved(base, named([t for t in (exact, near) if t is not None]))
    return (exact_rows(nodes, exact) if exact is not None else None,
            near_of_pairs(nodes, near, config) if near is not None else None)


def band_pairs_all(parts: list[dict[str, np.ndarray]], partitions: int, bands: int, min_shared: int) -> pa.Table:
    """The confirmed pairs of every band, each once."""
    return distinct_pairs([band_pairs(parts, j, partitions, bands, min_shared) for j in range(bands)])
