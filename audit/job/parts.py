"""Writing one Parquet part of a run's dataset from a stream of tables, atomically."""
from __future__ import annotations

import uuid
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from audit.io.storage import Location


class PartWriter:
    """Streams tables into one Parquet file that appears whole or not at all (local: a hidden
    temporary file renamed when closed; object stores: the object exists once closed). Writes
    nothing when it received no row."""

    def __init__(self, dest: Location) -> None:
        self.dest = dest
        self.tmp = dest.parent.child(f".{dest.name}.{uuid.uuid4().hex[:8]}.tmp") if dest.is_local else dest
        self._writer: pq.ParquetWriter | None = None
        self._sink: Any = None
        self.schema: pa.Schema | None = None
        self.rows = 0

    def write(self, table: pa.Table) -> None:
        if table.num_rows == 0:
            return
        if self._writer is None:
            self.schema = table.schema
            self.dest.parent.mkdir()
            self._sink = self.tmp.fs.open_output_stream(self.tmp.path, compression=None)
            self._writer = pq.ParquetWriter(self._sink, self.schema, compression="zstd")
        else:
            table = table.select(self.schema.names).cast(self.schema)  # type: ignore[union-attr]
        self._writer.write_table(table)
        self.rows += table.num_rows

    def close(self, empty: pa.Schema | None = None) -> None:
        """Finish the file; with no row written, write an empty file of schema `empty` if given."""
        if self._writer is None:
            if empty is None:
                return
            self.schema = empty
            self.dest.parent.mkdir()
            self._sink = self.tmp.fs.open_output_stream(self.tmp.path, compression=None)
            self._writer = pq.ParquetWriter(self._sink, empty, compression="zstd")
        self._writer.close()
        self._sink.close()
        if self.tmp is not self.dest:
            self.tmp.fs.move(self.tmp.path, self.dest.path)

    def abort(self) -> None:
        if self._writer is not None:
            try:
                self._writer.close()
                self._sink.close()
            except Exception:  # noqa: BLE001 - the file is discarded either way
                pass
            if self.tmp is not self.dest:
                self.tmp.delete()
