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
from audit.dedup.exact import exact_pairs, global_order, key_bytes, key_heads
from audit.dedup.minhash import bands_of, exploded_band_keys
from audit.dedup.partition import partition_of
from audit.dedup.rule import bucket_edges, confirmed, estimated_jaccard, resolve_rounds, step_aside

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


# ---------------------------------------------------------------- exact

def exact_keyed(batch: pa.Table, partitions: int) -> pa.Table:
    """Base rows with an exact key, keyed by it."""
    batch = batch.select(WHERE + ["order", "exact_key"]).filter(pc.is_valid(batch.column("exact_key")))
    return batch.append_column("part", pa.array(partition_of(key_heads(batch.column("exact_key")), partitions)))


def exact_group(group: pa.Table) -> pa.Table:
    """One partition of exact keys: its exact duplicates as duplicates/ rows."""
    dup, kept = exact_pairs(key_bytes(group.column("exact_key")), group.column("order").to_numpy())
    ids = group.column("doc_id").combine_chunks()
    kept_ids = ids.take(pa.array(kept, pa.int64()))
    return group.select(WHERE).take(pa.array(dup, pa.int64())) \
        .append_column("kind", pa.array(["exact"] * len(dup), pa.string())) \
        .append_column("cluster_id", pc.binary_join_element_wise("exact-", kept_ids, "")) \
        .append_column("kept_doc_id", kept_ids) \
        .append_column("similarity", pa.array(np.ones(len(dup)), pa.float64()))


# ---------------------------------------------------------------- near: confirmed pairs

def band_rows(batch: pa.Table, bands: int) -> dict[str, np.ndarray]:
    """Base rows with band keys as arrays, by input order: `order` (int64, ascending), `exact`
    (the exact key's head | 1, 0 for none: an exact duplicate steps aside in its buckets) and
    `bands` (uint32, records x bands). Small (~90 bytes a record), so every band's step reads
    them from memory (Ray's object store) rather than a shuffle of a row per band key."""
    batch = batch.filter(pc.is_valid(batch.column("minhash_bands")))
    order = batch.column("order").to_numpy()
    by = np.argsort(order, kind="stable")
    if "exact_key" in batch.column_names:
        # |1 keeps a real key from reading as 0, which marks "no exact key" (never steps aside)
        head = key_heads(batch.column("exact_key"))
        exact = np.where(head != 0, head | np.uint64(1), np.uint64(0))
    else:
        exact = np.zeros(len(order), np.uint64)
    mat = bands_of(batch.column("minhash_bands"), bands)
    return {"order": order[by], "exact": exact[by], "bands": np.ascontiguousarray(mat[by])}


def _bands_at(parts: list[dict[str, np.ndarray]], src: np.ndarray, row: np.ndarray, width: int) -> np.ndarray:
    """Band keys (records x bands) of rows `row` of parts `src`."""
    out = np.empty((len(row), width), np.uint32)
    for i in np.unique(src):
        at = src == i
        out[at] = parts[i]["bands"][row[at]]
    return out


def band_pairs(parts: list[dict[str, np.ndarray]], band: int, part: int, partitions: int, bands: int,
               min_shared: int) -> pa.Table:
    """The confirmed pairs (a < b, input orders) of one band's buckets whose key falls in
    partition `part` of `partitions`: records sharing the band key are candidates (exact
    duplicates stepping aside), confirmed when they share `min_shared` of their `bands` keys.
    `parts`: `band_rows` of every measurement part."""
    keys, order, exact, src, row = [], [], [], [], []
    for i, p in enumerate(parts):
        if not len(p["order"]):
            continue
        k = exploded_band_keys(p["bands"], band)
        sel = np.flatnonzero(partition_of(k, partitions) == part) if partitions > 1 else np.arange(len(k))
        keys.append(k[sel])
        order.append(p["order"][sel])
        exact.append(p["exact"][sel])
        src.append(np.full(len(sel), i, np.int32))
        row.append(sel)
    if not keys:
        return PAIRS.empty_table()
    k = np.concatenate(keys)
    # a bucket of one makes no pair and steps nothing aside: only the few shared keys go on to
    # the rule's sorts (an unstable sort of the keys alone finds them, 5x faster than those sorts)
    by = np.argsort(k)
    same = k[by][1:] == k[by][:-1]
    shared = np.zeros(len(k), bool)
    shared[1:] |= same
    shared[:-1] |= same
    sub = np.sort(by[shared])
    k, o, e, s, r = k[sub], *(np.concatenate(x)[sub] for x in (order, exact, src, row))
    keep = step_aside(k, o, e)
    at = np.arange(len(k))[keep]
    a, b = bucket_edges(k[keep], at, o[keep])  # rows of the candidates
    ok = (o[a] != o[b]) & confirmed(_bands_at(parts, s[a], r[a], bands), _bands_at(parts, s[b], r[b], bands),
                                    min_shared)
    lo, hi = np.minimum(o[a], o[b])[ok], np.maximum(o[a], o[b])[ok]
    pairs = np.unique(np.stack([lo, hi], axis=1), axis=0) if len(lo) else np.zeros((0, 2), np.int64)
    return pa.table({"a": pa.array(pairs[:, 0], pa.int64()), "b": pa.array(pairs[:, 1], pa.int64())})


def distinct_pairs(tables: list[pa.Table]) -> pa.Table:
    """The pairs of every band and partition, each once (sorted)."""
    t = pa.concat_tables([PAIRS.empty_table(), *tables])
    ab = np.stack([t.column("a").to_numpy(), t.column("b").to_numpy()], axis=1)
    ab = np.unique(ab, axis=0) if len(ab) else ab.reshape(0, 2)
    return pa.table({"a": pa.array(ab[:, 0], pa.int64()), "b": pa.array(ab[:, 1], pa.int64())})


def involved(base: pa.Table, pairs: pa.Table) -> pa.Table:
    """The base rows of the records a confirmed pair names (the only ones the rest of the pass needs)."""
    ends = np.union1d(pairs.column("a").to_numpy(), pairs.column("b").to_numpy())
    return base.filter(pa.array(np.isin(base.column("order").to_numpy(), ends)))


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
    exact = exact_group(exact_keyed(base, 1)) if d.exact else None
    if not d.near:
        return exact, None
    parts = [band_rows(base, d.bands)]
    pairs = distinct_pairs([band_pairs(parts, j, 0, 1, d.bands, d.min_shared_bands) for j in range(d.bands)])
    return exact, near_of_pairs(involved(base, pairs), pairs, config)
