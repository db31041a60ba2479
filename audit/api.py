"""The Python API, for notebooks and pipelines: run the audit, re-judge a run, export its records,
and open a finished run's outputs as Arrow datasets.

    import audit

    r = audit.run("audit.yaml", out="runs/today")        # or a dict, or an AuditConfig
    r.summary["quarantined"], r.lineage.to_table(columns=["doc_id", "verdict"])
    strict = audit.decide(r, {"filters": {"length": {"min_words": 50}}}, out="runs/strict")
    audit.export(strict, "clean/", verdict="kept")
    audit.open_run("runs/today").judgements

Every function raises an exception on bad input (audit.config.ConfigError, audit.io.shards.InputError:
both ValueError, with the one-line message the command prints) and never exits the process;
`audit.run` raises audit.job.plan.CanaryTripped when fail_on_contamination fires.
"""
from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    import pyarrow.dataset as pads

    from audit.config import AuditConfig
    from audit.io.storage import Location

ConfigLike = Union[str, "os.PathLike[str]", dict, "AuditConfig"]
RunLike = Union[str, "os.PathLike[str]", "Run"]
DATASETS = ("lineage", "quarantine", "duplicates", "contamination", "pii")


def load(config: ConfigLike, base_dir: str | os.PathLike[str] | None = None) -> "AuditConfig":
    """An AuditConfig from a YAML file's path, a dict of the same keys (relative paths read from
    `base_dir`, default the working folder) or an AuditConfig (returned as it is)."""
    from audit.config import AuditConfig, ConfigError, load_config, parse_config

    if isinstance(config, AuditConfig):
        return config
    if isinstance(config, dict):
        return parse_config(config, base_dir=Path(base_dir or Path.cwd()), source="config dict")
    if isinstance(config, (str, os.PathLike)):
        return load_config(config)
    raise ConfigError(f"config: expected a path, a dict or an AuditConfig, got {type(config).__name__}")


class Run:
    """A finished run folder (local or an object-store URI) and typed access to its outputs."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        from audit.io.storage import location
        from audit.job.run_folder import require_finished

        self.location: Location = location(path, Path.cwd())
        require_finished(self.location, "audit.open_run")

    @property
    def path(self) -> Path | str:
        """The folder: a local Path, or the object-store URI."""
        return Path(self.location.path) if self.location.is_local else self.location.uri

    def __repr__(self) -> str:
        s = self.summary
        return f"Run({str(self.path)!r}: {s.get('documents')} documents, {s.get('kept')} kept, " \
               f"{s.get('quarantined')} quarantined)"

    def __fspath__(self) -> str:
        return str(self.path)

    @cached_property
    def summary(self) -> dict[str, Any]:
        """summary.json (CONTRACT.md names its keys: documents, kept, quarantined, reasons, ...)."""
        return self.location.child("summary.json").read_json()

    @property
    def documents(self) -> int:
        return int(self.summary["documents"])

    @property
    def kept(self) -> int:
        return int(self.summary["kept"])

    @property
    def quarantined(self) -> int:
        return int(self.summary["quarantined"])

    @property
    def reasons(self) -> dict[str, int]:
        """Quarantined records per reason."""
        return dict(self.summary.get("reasons") or {})

    @cached_property
    def manifest(self) -> dict[str, Any]:
        """run.json: the shards read, the config, the measuring settings."""
        from audit.job.run_folder import run_manifest

        return run_manifest(self.location)

    @cached_property
    def config(self) -> "AuditConfig":
        """The config the run was judged with."""
        from audit.job.run_folder import run_config

        return run_config(self.location, self.manifest)

    def dataset(self, name: str) -> "pads.Dataset":
        """One of the run's Parquet datasets (lineage, quarantine, duplicates, contamination, pii)."""
        import pyarrow.dataset as pads

        if name not in DATASETS:
            raise ValueError(f"dataset {name!r}: one of {', '.join(DATASETS)}")
        folder = self.location.child(name)
        return pads.dataset(folder.path, filesystem=folder.fs, format="parquet")

    @property
    def lineage(self) -> "pads.Dataset":
        """One row per input record: where it is, its measurements, verdict and reasons."""
        return self.dataset("lineage")

    @property
    def quarantine(self) -> "pads.Dataset":
        return self.dataset("quarantine")

    @property
    def duplicates(self) -> "pads.Dataset":
        return self.dataset("duplicates")

    @property
    def contamination(self) -> "pads.Dataset":
        return self.dataset("contamination")

    @property
    def pii(self) -> "pads.Dataset":
        return self.dataset("pii")

    @property
    def unreadable(self) -> list[dict[str, Any]]:
        """unreadable.jsonl: every line or file that could not be read (shard, place, error)."""
        import json

        f = self.location.child("unreadable.jsonl")
        return [json.loads(line) for line in f.read_text().splitlines() if line.strip()] if f.is_file() else []

    @property
    def judgements(self) -> list[dict[str, Any]]:
        """The judgements `decide` replaced in this folder (judgements/), oldest first."""
        from audit.job.run_folder import judgement_history

        return judgement_history(self.location)

    @property
    def report(self) -> Path | str:
        """report.html (a local path, or its URI)."""
        page = self.location.child("report.html")
        return Path(page.path) if page.is_local else page.uri

    def decide(self, config: ConfigLike | None = None, out: str | os.PathLike[str] | None = None,
               address: str | None = None) -> "Run":
        """Re-judge this run (see `audit.decide`)."""
        return decide(self, config, out, address=address)

    def export(self, out: str | os.PathLike[str], verdict: str = "kept", format: str | None = None,
               compression: str | None = None, address: str | None = None) -> dict[str, Any]:
        """Export this run's records of a verdict (see `audit.export`)."""
        return export(self, out, verdict, format, compression, address=address)


def _where(run: RunLike) -> str:
    return run.location.uri if isinstance(run, Run) else os.fspath(run)


def open_run(path: RunLike) -> Run:
    """A finished run folder (InputError when it is missing or unfinished)."""
    return Run(_where(path))


def run(config: ConfigLike, out: str | os.PathLike[str] | None = None, *, address: str | None = None,
        progress: bool = False, fresh: bool = False) -> Run:
    """`audit run`: audit the shards the config names into `out` (default: the config's `output`);
    returns the finished run."""
    from audit.job.plan import run_audit

    res = run_audit(load(config), out=out, address=address, progress=progress, fresh=fresh)
    return Run(res.out)


def decide(run: RunLike, config: ConfigLike | None = None, out: str | os.PathLike[str] | None = None, *,
           address: str | None = None) -> Run:
    """`audit decide`: re-judge a finished run from its measurements with `config`'s thresholds
    (default: its own; a dict holds changes to its own, merged key by key). With `out`, a new run
    folder there and `run` unchanged; without, the judgement is replaced in place and the previous
    one kept under judgements/."""
    from audit.config import parse_config
    from audit.job.plan import decide_run

    if isinstance(config, dict):  # changes to the run's own config, key by key
        src = open_run(run)
        config = parse_config(_merged(src.manifest["config"], config), Path(src.manifest.get("base_dir", ".")),
                              source="config dict")
    res = decide_run(_where(run), load(config) if config is not None else None, address=address, out=out)
    return Run(res.out)


def _merged(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """`base` with `changes` applied: mappings merged key by key, other values (lists too) replaced."""
    out = dict(base)
    for k, v in changes.items():
        out[k] = _merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def export(run: RunLike, out: str | os.PathLike[str], verdict: str = "kept", format: str | None = None,
           compression: str | None = None, *, address: str | None = None) -> dict[str, Any]:
    """`audit export`: the records of `verdict` as the input held them, a file per shard under
    `out`; returns the export's manifest (counts, ledger head, config fingerprint)."""
    from audit.exporter import ExportOptions, export_run

    return export_run(_where(run), out, ExportOptions(verdict, format, compression), address=address).manifest
