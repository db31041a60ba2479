"""Writing the blocklist: a takedown adds its blocked records to `blocklist/` (read by audit.blocklist)."""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from audit.blocklist import BLOCKLIST_DIR, BLOCKLIST_SCHEMA, Blocklist
from audit.io.atomic import write_parquet_atomic

__all__ = ["BLOCKLIST_DIR", "BLOCKLIST_SCHEMA", "Blocklist", "append_blocklist"]


def append_blocklist(run_dir: Path, rows: pa.Table, name: str) -> Path:
    """Add blocked records to `run_dir/blocklist/` as a new file `name`.parquet, atomically."""
    folder = Path(run_dir) / BLOCKLIST_DIR
    folder.mkdir(parents=True, exist_ok=True)
    return write_parquet_atomic(rows.select(BLOCKLIST_SCHEMA.names).cast(BLOCKLIST_SCHEMA), folder / f"{name}.parquet")
