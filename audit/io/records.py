"""The one reading of a record, for the job's shard reader and the sidecar alike.

A JSON line and a Parquet row are decoded here, and nowhere else, into a record's fields (text,
source id, url, source) or an error that says why the record cannot be read. The diagnosis is the
same wherever a record comes from: a UTF-8 byte-order mark opening a stream is skipped, a line
that is not UTF-8 names the byte where it breaks, a line that is not JSON says so, a value that is
not an object names its JSON type, a text that is not a string names what it is, a line over
input.max_record_bytes gives its length. `LineDecoder` numbers the records of a stream of lines
as the job numbers them (every non-blank line is a record, bad ones too) and counts the lines (the
job's `line` column is the 0-based index, `lines - 1`; messages for people say "line N", 1-based).
`parquet_batches` reads a Parquet file once, a record batch at a time, with the same per-record
diagnosis.

`RecordBlock` gathers decoded records into tables of audit.records.RECORD_SCHEMA (the job);
the sidecar takes the decoded JSON objects (`Decoded.obj`) for its own fields.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, NamedTuple

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from audit.records import RECORD_SCHEMA, make_doc_id, text_sha256

BOM = b"\xef\xbb\xbf"
_MAX_BLOCK_ROWS = 10_000
PARQUET_BATCH_ROWS = 2048


@dataclass(frozen=True)
class RecordFields:
    """Where a record keeps its text, id, url and source (config input.*_field)."""

    text: str = "text"
    id: str | None = None
    url: str | None = None
    source: str | None = None

    @classmethod
    def of(cls, cfg: Any) -> "RecordFields":
        """The fields an InputConfig names."""
        return cls(cfg.text_field, cfg.id_field, cfg.url_field, cfg.source_field)

    def columns(self) -> list[str]:
        """The fields' names, text first, each once."""
        return list(dict.fromkeys(f for f in (self.text, self.id, self.url, self.source) if f))


class Decoded(NamedTuple):
    """One record read: its fields, or `error` (then `text` is None). `obj` is the decoded JSON
    object when there is one (a record with a bad text still has it)."""

    text: str | None
    source_id: str | None
    url: str | None
    source: str | None
    error: str | None
    obj: Mapping[str, Any] | None = None


def json_type(value: object) -> str:
    """A value's JSON type with its article, as a message names it ("an object", "null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _opt_str(obj: Mapping[str, Any], field: str | None) -> str | None:
    if not field:
        return None
    v = obj.get(field)
    return None if v is None else (v if isinstance(v, str) else orjson.dumps(v).decode())


_decoded = tuple.__new__  # a Decoded without NamedTuple's Python-level __new__: a line costs less


def decode_object(obj: Any, fields: RecordFields) -> Decoded:
    """A record given as a decoded value: a JSON object (any mapping) is read by `fields`, anything
    else is an error naming its JSON type. A non-string id, url or source is kept as its JSON
    text (true, 12, {"a": 1}); a text that is not a string is an error naming its type."""
    if type(obj) is not dict and not isinstance(obj, Mapping):
        return Decoded(None, None, None, None, f"JSON value is {json_type(obj)}, not an object")
    text = obj.get(fields.text)
    sid = _opt_str(obj, fields.id) if fields.id else None
    url = _opt_str(obj, fields.url) if fields.url else None
    source = _opt_str(obj, fields.source) if fields.source else None
    if not isinstance(text, str):
        what = "missing" if fields.text not in obj else f"{json_type(text)}, not a string"
        return Decoded(None, sid, url, source, f"text field '{fields.text}' is {what}", obj)
    return _decoded(Decoded, (text, sid, url, source, None, obj))


def decode_line(line: bytes, fields: RecordFields, at_start: bool = False) -> Decoded:
    """One JSON line (without its newline); `at_start`: the line opens its stream (a BOM may lead it)."""
    if at_start and line.startswith(BOM):
        line = line[3:]  # a UTF-8 byte-order mark opens the file, as other readers skip it
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as e:
        try:
            line.decode("utf-8")
            msg = f"invalid JSON: {e}"
        except UnicodeDecodeError as u:
            msg = f"invalid UTF-8 at byte {u.start} of the line"
        return Decoded(None, None, None, None, msg)
    return decode_object(obj, fields)


def oversize_error(length: int, max_bytes: int) -> str:
    """The error of a line longer than input.max_record_bytes (its bytes were never kept)."""
    return f"line of {length} bytes exceeds input.max_record_bytes ({max_bytes})"


class LineDecoder:
    """Decodes the lines of one stream in order, numbering its records and lines as the job does.

    Feed it `audit.io.shards.split_lines` triples (offset, line or None when oversize, length).
    After a feed, `lines` is the 1-based number of that line and `records - 1` the 0-based index
    of its record. `start_line`/`start_record` continue a stream read before (a tailed file)."""

    def __init__(self, fields: RecordFields, max_record_bytes: int, start_line: int = 0,
                 start_record: int = 0) -> None:
        self.fields, self.max_record_bytes = fields, max_record_bytes
        self.lines, self.records = start_line, start_record

    def feed(self, offset: int, line: bytes | None, length: int) -> Decoded | None:
        """The record of one line; None for a blank line (it counts as a line, not a record)."""
        self.lines += 1
        if line is None:
            decoded = Decoded(None, None, None, None, oversize_error(length, self.max_record_bytes))
        elif not line.strip():
            return None
        else:
            decoded = decode_line(line, self.fields, offset == 0)
        self.records += 1
        return decoded


# ---- Parquet ----------------------------------------------------------------------------------

class FileFault(Exception):
    """A fault of a whole file (not Parquet, no text column, damaged): one message, no record."""


class ParquetBatch(NamedTuple):
    """Decoded rows of one record batch: `decoded[i]` for row `first + i`, and `columns`, the
    requested columns' values (strings decoded, invalid UTF-8 replaced outside the text)."""

    first: int
    decoded: list[Decoded]
    columns: dict[str, list]


def parquet_batches(source: str | BinaryIO, fields: RecordFields, extra: Sequence[str] | None = (),
                    batch_rows: int = PARQUET_BATCH_ROWS) -> Iterator[ParquetBatch]:
    """Read a Parquet file once, a record batch at a time: the fields' columns and `extra` (those
    present; None: every column). Raises FileFault when it is not Parquet, has no text column, or breaks part way
    (after yielding what came before). Each text is decoded on its own: invalid UTF-8 in one row
    makes that row unreadable, not the file."""
    try:
        pf = pq.ParquetFile(source)
    except (pa.ArrowInvalid, pa.ArrowException) as e:
        raise FileFault(f"not a readable Parquet file: {e}") from None
    names = set(pf.schema_arrow.names)
    if fields.text not in names:
        raise FileFault(f"Parquet file has no text column '{fields.text}' "
                        f"({pf.metadata.num_rows} rows not read; columns: {sorted(names)[:10]})")
    wanted = pf.schema_arrow.names if extra is None else extra
    cols = [c for c in dict.fromkeys([*fields.columns(), *wanted]) if c in names]
    record = 0
    try:
        for batch in pf.iter_batches(batch_size=batch_rows, columns=cols):
            data = {name: column_values(batch.column(name), strict=name == fields.text) for name in batch.schema.names}
            texts = data[fields.text]
            ids = [_scalar_str(v) for v in data[fields.id]] if fields.id in data else None
            urls = [_scalar_str(v) for v in data[fields.url]] if fields.url in data else None
            sources = [_scalar_str(v) for v in data[fields.source]] if fields.source in data else None
            decoded = []
            for i, text in enumerate(texts):
                d = decode_parquet_text(text, fields.text, ids[i] if ids is not None else None,
                                        urls[i] if urls is not None else None,
                                        sources[i] if sources is not None else None)
                texts[i] = d.text
                decoded.append(d)
            yield ParquetBatch(record, decoded, data)
            record += len(texts)
    except (pa.ArrowInvalid, pa.ArrowException, OSError) as e:
        raise FileFault(f"Parquet file is damaged after {record} records: {e}") from None


def decode_parquet_text(text: object, field: str, source_id: str | None = None, url: str | None = None,
                        source: str | None = None) -> Decoded:
    """A Parquet row's text value (bytes as `column_values` gives it): decoded, or why it cannot be."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as u:
            return Decoded(None, source_id, url, source, f"invalid UTF-8 at byte {u.start} of the text")
    if isinstance(text, str):
        return _decoded(Decoded, (text, source_id, url, source, None, None))
    return Decoded(None, source_id, url, source, f"text field '{field}' is {json_type(text)}, not a string")


def column_values(col: pa.Array | pa.ChunkedArray, strict: bool) -> list:
    """A column's values. Strings come as bytes first (Arrow does not check UTF-8 on read): the
    text is left as bytes for its record's own check; other strings are decoded, bad bytes replaced."""
    t = col.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        # a view, not a cast: the same buffers read as bytes (a cast copies them, 30 ms a batch)
        as_bytes = pa.binary() if pa.types.is_string(t) else pa.large_binary()
        chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
        raw = [v for chunk in chunks for v in chunk.view(as_bytes).to_pylist()]
        return raw if strict else [None if v is None else v.decode("utf-8", "replace") for v in raw]
    return col.to_pylist()


def _scalar_str(v: object) -> str | None:
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return None if v is None else (v if isinstance(v, str) else str(v))


# ---- Arrow blocks of records (the job) --------------------------------------------------------

class RecordBlock:
    """Records of one shard gathered a row at a time, cut into RECORD_SCHEMA tables of bounded size."""

    # The columns a row holds, in RECORD_SCHEMA's order without `shard` and `shard_index` (the
    # same for every row of the block).
    _ROW = [n for n in RECORD_SCHEMA.names if n not in ("shard", "shard_index")]

    def __init__(self, shard: str, shard_index: int, block_bytes: int) -> None:
        self.shard, self.shard_index, self.block_bytes = shard, shard_index, block_bytes
        self._reset()

    def _reset(self) -> None:
        self.rows: list[tuple] = []
        self.size = 0

    def __len__(self) -> int:
        return len(self.rows)

    def add(self, record: int | None, offset: int | None, d: Decoded, line: int | None = None) -> None:
        """One decoded record at its place (`record` None: a fault of the whole file)."""
        text = d.text
        if text is None:
            sha = chars = size = None
        else:
            raw = text.encode("utf-8", "surrogatepass")
            sha = text_sha256(text, raw)
            chars, size = len(text), len(raw)
            self.size += size
        self.rows.append((make_doc_id(self.shard, record) if record is not None else None, d.source_id, record,
                          offset, line, d.url, d.source, text, sha, chars, size, d.error))

    def fault(self, error: str, offset: int | None = None, line: int | None = None) -> None:
        """A fault of the whole file (or of its rest): a row with no record."""
        self.add(None, offset, Decoded(None, None, None, None, error), line)

    def full(self) -> bool:
        return self.size >= self.block_bytes or len(self.rows) >= _MAX_BLOCK_ROWS

    def take(self) -> pa.Table | None:
        """The records gathered so far as a table (None when there are none); starts a new block."""
        if not self.rows:
            return None
        n = len(self.rows)
        columns = dict(zip(self._ROW, zip(*self.rows)))
        columns["shard"] = pa.repeat(pa.scalar(self.shard, pa.string()), n)  # type: ignore[assignment]
        columns["shard_index"] = pa.repeat(pa.scalar(self.shard_index, pa.int32()), n)  # type: ignore[assignment]
        t = pa.Table.from_arrays([pa.array(columns[f.name], f.type) for f in RECORD_SCHEMA], schema=RECORD_SCHEMA)
        self._reset()
        return t
