"""The global dedup pass as per-partition steps over Arrow tables.

Each step is a plain function of a table (a batch, or one partition of a shuffle). The job's
shuffled run (audit.job.global_dedup) puts a Ray Data hash shuffle between consecutive steps;
the one-partition run (`one_partition`) calls the very same steps with one partition and no
shuffle, in this process. Records are named by their input order (audit.dedup.exact.global_order),
so a component's smallest node is the record both runs keep, and their results are equal.

    base        measurement rows with a record, and their order            (read once)
    exact       keyed by exact key -> each partition's exact duplicates
    explode     a row per band key, keyed by it -> candidate pairs of each bucket (`bucket_pairs`)
    confirm     pairs meet a's band keys (keyed by a), then b's (keyed by b): confirmed pairs
    components  star edges around each component's earliest record
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


# ---------------------------------------------------------------- near: candidates

def explode(batch: pa.Table, bands: int, partitions: int) -> pa.Table:
    """A record's band keys as one row per band, keyed by the band key (with the record's exact
    key head, so an exact duplicate can step aside in its buckets)."""
    batch = batch.filter(pc.is_valid(batch.column("minhash_bands")))
    mat = bands_of(batch.column("minhash_bands"), bands)
    order = batch.column("order").to_numpy()
    keys = np.concatenate([exploded_band_keys(mat, j) for j in range(bands)]) if len(order) else np.zeros(0, np.uint64)
    cols: dict[str, Any] = {"part": partition_of(keys, partitions), "key": keys, "order": np.tile(order, bands)}
    if "exact_key" in batch.column_names:
        # |1 keeps a real key from reading as 0, which marks "no exact key" (never steps aside)
        head = key_heads(batch.column("exact_key"))
        cols["exact"] = np.tile(np.where(head != 0, head | np.uint64(1), np.uint64(0)), bands)
    return pa.table(cols)


def bucket_pairs(group: pa.Table) -> pa.Table:
    """One partition of band keys: candidate pairs (a, b as orders) of its buckets."""
    keys = group.column("key").to_numpy()
    order = group.column("order").to_numpy()
    if "exact" in group.column_names:
        keep = step_aside(keys, order, group.column("exact").to_numpy())
        keys, order = keys[keep], order[keep]
    a, b = bucket_edges(keys, order, order)
    return pa.table({"a": pa.array(a, pa.int64()), "b": pa.array(b, pa.int64())})


# ---------------------------------------------------------------- near: confirm

def _rows(kind: int, u: np.ndarray, v: np.ndarray | None, partitions: int, bands: pa.Array | None = None,
          where: pa.Table | None = None) -> pa.Table:
    """Rows of one shuffle: kind, u (the key, partitioned on), v, band keys and, for the resolve
    step, the record's location columns (null where not carried)."""
    n = len(u)
    cols: dict[str, Any] = {
        "part": partition_of(u, partitions), "kind": pa.array(np.full(n, kind, np.int8)),
        "u": pa.array(u, pa.int64()), "v": pa.array(v if v is not None else np.full(n, -1, np.int64), pa.int64()),
        "bands": bands.cast(pa.binary()) if bands is not None else pa.nulls(n, pa.binary())}
    if where is not None:
        for name, t in _WHERE_TYPES.items():
            cols[name] = where.column(name).cast(t)
    return pa.table(cols)


def _with_where(table: pa.Table) -> pa.Table:
    """Null location columns on rows that carry none (pair and label rows of the resolve step)."""
    for name, t in _WHERE_TYPES.items():
        if name not in table.column_names:
            table = table.append_column(name, pa.nulls(table.num_rows, t))
    return table


def node_rows(batch: pa.Table, partitions: int, where: bool) -> pa.Table:
    """Base rows with band keys -> node rows keyed by the record's order (with its location
    columns when `where`: the resolve step writes them)."""
    batch = batch.filter(pc.is_valid(batch.column("minhash_bands")))
    rows = _rows(_NODE, batch.column("order").to_numpy(), None, partitions, batch.column("minhash_bands"),
                 batch.select(WHERE) if where else None)
    return _with_where(rows) if where else rows


def pair_rows(batch: pa.Table, partitions: int) -> pa.Table:
    """Candidate pairs (a, b) -> pair rows keyed by a."""
    return _rows(_EDGE, batch.column("a").to_numpy(), batch.column("b").to_numpy(), partitions)


def _split(group: pa.Table) -> tuple[pa.Table, pa.Table]:
    kind = group.column("kind")
    return group.filter(pc.equal(kind, _NODE)), group.filter(pc.equal(kind, _EDGE))


def _lookup(nodes: pa.Table, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row in `nodes` of each key (nodes sorted by u), and whether it is there."""
    u = nodes.column("u").to_numpy()
    at = np.minimum(np.searchsorted(u, keys), max(len(u) - 1, 0))
    found = (u[at] == keys) if len(u) else np.zeros(len(keys), bool)
    return at, found


def attach_a(group: pa.Table, partitions: int) -> pa.Table:
    """Partition by a: each distinct pair takes a's band keys and moves on keyed by b."""
    nodes, pairs = _split(group)
    nodes = nodes.sort_by("u")
    ab = np.unique(np.stack([pairs.column("u").to_numpy(), pairs.column("v").to_numpy()], axis=1), axis=0)
    at, found = _lookup(nodes, ab[:, 0])
    ab, at = ab[found], at[found]
    return _rows(_EDGE, ab[:, 1], ab[:, 0], partitions, nodes.column("bands").take(pa.array(at, pa.int64())))


def confirm_b(group: pa.Table, bands: int, min_shared: int) -> pa.Table:
    """Partition by b: each pair meets b's band keys; the confirmed pairs (a < b) come out."""
    nodes, pairs = _split(group)
    nodes = nodes.sort_by("u")
    at, found = _lookup(nodes, pairs.column("u").to_numpy())
    pairs, at = pairs.filter(pa.array(found)), at[found]
    mat_a = bands_of(pairs.column("bands"), bands)
    mat_b = bands_of(nodes.column("bands").take(pa.array(at, pa.int64())), bands)
    a, b = pairs.column("v").to_numpy(), pairs.column("u").to_numpy()
    keep = (a != b) & confirmed(mat_a, mat_b, min_shared)
    return pa.table({"a": pa.array(np.minimum(a, b)[keep], pa.int64()), "b": pa.array(np.maximum(a, b)[keep], pa.int64())})


# ---------------------------------------------------------------- near: label and resolve

def label_rows(stars: pa.Table, partitions: int) -> pa.Table:
    """Star edges (a = smallest node, b = node) -> label rows: each node keyed by itself, v = its component."""
    a, b = stars.column("a").to_numpy(), stars.column("b").to_numpy()
    return _with_where(_rows(_LABEL, np.concatenate([b, a]), np.concatenate([a, a]), partitions))


def confirmed_rows(pairs: pa.Table, partitions: int) -> pa.Table:
    """Confirmed pairs -> pair rows keyed by a (the resolve step's shuffle)."""
    return _with_where(_rows(_EDGE, pairs.column("a").to_numpy(), pairs.column("b").to_numpy(), partitions))


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


# ---------------------------------------------------------------- the one-partition run

def one_partition(table: pa.Table, config: "AuditConfig") -> tuple[pa.Table | None, pa.Table | None]:
    """The pass over all records in this process: every step above with one partition and no
    shuffle, components by union-find. `table`: the measurement columns (`measured_columns`) of
    every record. Returns (exact duplicates, near duplicates) as duplicates/ rows; None for a
    kind that is off."""
    d = config.dedup
    base = base_rows(table)
    exact = exact_group(exact_keyed(base, 1)) if d.exact else None
    if not d.near:
        return exact, None
    candidates = bucket_pairs(explode(base, d.bands, 1))
    nodes = node_rows(base, 1, where=False)
    with_a = attach_a(pa.concat_tables([nodes, pair_rows(candidates, 1)]), 1)
    pairs = confirm_b(pa.concat_tables([nodes, with_a]), d.bands, d.min_shared_bands)
    stars = star_edges(pairs)
    labelled = label(pa.concat_tables([node_rows(base, 1, where=True), label_rows(stars, 1),
                                       confirmed_rows(pairs, 1)]), 1)
    return exact, resolve(labelled, config)
