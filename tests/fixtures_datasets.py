"""Test helpers for Parquet datasets and length reports (the job itself never needs them).

`DatasetWriter` writes a folder of Parquet parts from a stream of tables (every part atomically,
with audit.io.atomic's writer), `read_dataset` reads such a folder on any filesystem, and
`length_summary` builds the summary's length report from plain arrays through audit.lengths.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads

from audit.io.storage import Location, location
from audit.job.parts import PartWriter
from audit.lengths import LengthStats, length_report


class DatasetWriter:
    """Appends Arrow tables to a Parquet dataset folder, a new part every `rows_per_file` rows.

    The folder always holds at least one part (empty, with the schema), so
    `pyarrow.dataset.dataset(folder)` reads an empty result as a table with the right columns."""

    def __init__(self, folder: Path, schema: pa.Schema, rows_per_file: int = 2_000_000) -> None:
        self.folder, self.schema, self.rows_per_file = Path(folder), schema, rows_per_file
        self.folder.mkdir(parents=True, exist_ok=True)
        self._part: PartWriter | None = None
        self._files = 0
        self.rows = 0

    def write(self, table: pa.Table) -> None:
        if table.num_rows == 0:
            return
        if self._part is None:
            self._part = PartWriter(location(self.folder / f"part-{self._files:05d}.parquet"))
        self._part.write(table.select(self.schema.names).cast(self.schema))
        self.rows += table.num_rows
        if self._part.rows >= self.rows_per_file:
            self._finish()

    def _finish(self) -> None:
        if self._part is not None:
            self._part.close()
            self._files += 1
            self._part = None

    def close(self) -> int:
        """Finish the last part; returns the number of rows written."""
        if self._files == 0 and self._part is None:  # an empty dataset still carries its schema
            PartWriter(location(self.folder / "part-00000.parquet")).close(empty=self.schema)
            self._files = 1
        self._finish()
        return self.rows


def read_dataset(folder: Location, columns: list[str] | None = None, filter: Any = None) -> pa.Table | None:
    """A Parquet dataset folder as one table; None when the folder holds no Parquet file."""
    files = [f.path for f in folder.walk() if f.name.endswith(".parquet") and not f.name.startswith((".", "_"))]
    if not files:
        return None
    return pads.dataset(files, format="parquet", filesystem=folder.fs).to_table(columns=columns, filter=filter)


def _as_float(values: Any) -> np.ndarray:
    """A float array with NaN for nulls."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return pc.cast(values, pa.float64()).to_numpy(zero_copy_only=False)
    return np.asarray([np.nan if v is None else v for v in values], dtype=np.float64)


def length_summary(chars: Any, words: Any, tokens: Any = None, sources: Any = None,
                   context_lengths: Sequence[int] = (2048, 4096, 8192, 32768)) -> dict[str, Any]:
    """The summary's length report ({"overall", "by_source"}) of documents given as arrays;
    rows with a null length are left out."""
    cols = {"chars": _as_float(chars), "words": _as_float(words)}
    if tokens is not None:
        cols["tokens"] = _as_float(tokens)
    n = cols["chars"].size
    if any(v.size != n for v in cols.values()):
        raise ValueError("chars, words and tokens must have the same length")
    overall = LengthStats(context_lengths)
    overall.add(cols)
    groups: dict[str, LengthStats] = {}
    if sources is not None:
        src = sources.to_pylist() if isinstance(sources, (pa.Array, pa.ChunkedArray)) else list(sources)
        if len(src) != n:
            raise ValueError("sources must have one entry per document")
        names, inv = np.unique(np.asarray(["" if s is None else str(s) for s in src], dtype=str),
                               return_inverse=True)
        for i, name in enumerate(names.tolist()):
            rows = inv == i
            g = LengthStats(context_lengths)
            g.add({k: v[rows] for k, v in cols.items()})
            if g.documents:
                groups[name] = g
    return length_report(overall, groups)
