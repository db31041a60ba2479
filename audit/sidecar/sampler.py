"""Trainer-side sampling: which records of a batch the sidecar looks at, and what it keeps of them.

`BernoulliSampler` draws the gaps between sampled records from a geometric distribution, which is
the same process as flipping a coin per record at `rate`, but costs one draw per *sampled*
record instead of one per record: at 1% a batch of 512 records costs about five draws.

`extract` turns one sampled record (a dict, a plain string, or a row of a column batch) into a
`Sample`: plain str/int fields only, so it crosses a thread or process boundary cheaply and
never drags a tensor or a large object along.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, TypedDict

import numpy as np
import pyarrow as pa

from audit.io.records import RecordFields, decode_object, json_type

# Fields a record may carry so that a bad batch can be found and replayed.
REPLAY_FIELDS = ("global_step", "rank", "micro_batch", "sample_id")


class Sample(TypedDict):
    """One sampled record as the worker receives it (`text` at most sidecar.max_record_bytes)."""

    text: str
    chars: int            # the whole text's length, in characters
    bytes: int            # UTF-8 bytes of `text` as kept: what the sidecar's byte budgets count
    truncated: bool       # `text` is a prefix of the record's
    global_step: int | None
    rank: int | None
    micro_batch: int | None
    sample_id: str | None
    source_id: str | None
    url: str | None


class MalformedRecord(ValueError):
    """A record the sidecar cannot read (not an object, no text): counted and skipped."""


class BernoulliSampler:
    """Independent sampling of each record with probability `rate`, continued across calls."""

    def __init__(self, rate: float, seed: int | None = None) -> None:
        if not 0 < rate <= 1:
            raise ValueError(f"sample rate must be in (0, 1], got {rate}")
        self.rate = rate
        self._rng = np.random.default_rng(seed)
        # Records still to pass before the next sampled one.
        self._skip = self._gap()

    def _gap(self) -> int:
        return 0 if self.rate >= 1 else int(self._rng.geometric(self.rate)) - 1

    def pick(self, n: int) -> list[int]:
        """Indexes (ascending) of the records of the next `n` that are sampled."""
        if self.rate >= 1:
            return list(range(n))
        picked: list[int] = []
        i = self._skip
        while i < n:
            picked.append(i)
            i += 1 + self._gap()
        self._skip = i - n
        return picked


def _opt_int(v: Any) -> int | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        return int(v)  # numpy and torch scalars convert too
    except (TypeError, ValueError):
        return None


def _opt_str(v: Any) -> str | None:
    if v is None:
        return None
    return v if isinstance(v, str) else str(v)


def bounded_text(text: str, max_bytes: int) -> tuple[str, int, bool]:
    """(text or its longest prefix of at most `max_bytes` UTF-8 bytes, its bytes, whether it was cut).

    Only a prefix of a long text is ever encoded, so a 60 MB record costs no 60 MB copy.
    """
    head = text[:max_bytes]  # a character is at least one byte: the prefix needs no more
    data = head.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return (text, len(data), False) if len(head) == len(text) else (head, len(data), True)
    cut = data[:max_bytes].decode("utf-8", "ignore")  # a character split at the limit is left out
    return cut, len(cut.encode("utf-8", "surrogatepass")), True


def extract(record: Any, text_field: str, id_field: str | None, url_field: str | None,
            step: int | None = None, rank: int | None = None, max_bytes: int = 1 << 62) -> Sample:
    """A `Sample` from one record; `step` and `rank` fill in what the record does not carry; its
    text is kept to `max_bytes` UTF-8 bytes (sidecar.max_record_bytes).

    Raises MalformedRecord when the record is neither a string nor a mapping with a string text.
    """
    if isinstance(record, str):
        kept, size, cut = bounded_text(record, max_bytes)
        return Sample(text=kept, chars=len(record), bytes=size, truncated=cut, global_step=step, rank=rank,
                      micro_batch=None, sample_id=None, source_id=None, url=None)
    if not isinstance(record, Mapping):
        raise MalformedRecord(f"a record is {json_type(record)}, not an object or a string")
    text, source_id, url, _, error, _ = decode_object(record, RecordFields(text_field, id_field, url_field))
    if text is None:
        raise MalformedRecord(error)
    gs = _opt_int(record.get("global_step"))
    rk = _opt_int(record.get("rank"))
    kept, size, cut = bounded_text(text, max_bytes)
    return Sample(text=kept, chars=len(text), bytes=size, truncated=cut, global_step=step if gs is None else gs,
                  rank=rank if rk is None else rk, micro_batch=_opt_int(record.get("micro_batch")),
                  sample_id=_opt_str(record.get("sample_id")), source_id=source_id, url=url)


def batch_length(records: Any, text_field: str) -> int:
    """Number of records in a batch: a sequence of records, an Arrow table, or a dict of columns."""
    if isinstance(records, (pa.Table, pa.RecordBatch)):
        return records.num_rows
    if isinstance(records, Mapping):
        column = records.get(text_field)
        if column is None:
            raise MalformedRecord(f"a column batch has no '{text_field}' column")
        return len(column)
    if isinstance(records, (str, bytes)) or not isinstance(records, Sequence):
        raise MalformedRecord(f"records must be a sequence, an Arrow table or a dict of columns, "
                              f"not {json_type(records)}")
    return len(records)


def record_fields(text_field: str, id_field: str | None, url_field: str | None) -> tuple[str, ...]:
    """The fields `extract` reads from a record: the only ones worth taking out of a column batch."""
    return (text_field, *REPLAY_FIELDS, *(f for f in (id_field, url_field) if f))


def record_at(records: Any, i: int, fields: Collection[str] | None = None) -> Any:
    """Record `i` of a batch in any of the shapes `batch_length` accepts (a dict for columns).

    For a column batch only `fields` (when given) are taken: a training batch may carry token
    ids or embeddings that the sidecar never reads and should not convert.
    """
    if isinstance(records, (pa.Table, pa.RecordBatch)):
        names = records.column_names if fields is None else [f for f in fields if f in records.column_names]
        return {name: records.column(name)[i].as_py() for name in names}
    if isinstance(records, Mapping):
        names = records.keys() if fields is None else [f for f in fields if f in records]
        return {name: records[name][i] for name in names if _indexable(records[name], i)}
    return records[i]


def _indexable(col: Any, i: int) -> bool:
    try:
        return len(col) > i and not isinstance(col, (str, bytes))
    except TypeError:
        return False
