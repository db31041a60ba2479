"""Guard on the private Ray logging classes audit/ray_data_logging.yaml names.

Ray Data's own logging config is the only way to route its records to the session's ray-data.log
and keep only errors on the console (the job's progress lines stay readable); it names classes of
`ray.data._internal` and `ray._private`. This test fails when a Ray release moves or renames them,
so the YAML is updated before a run's logging setup breaks.
"""
from __future__ import annotations

import importlib
import logging
from pathlib import Path

import yaml

import audit

CONFIG = Path(audit.__file__).parent / "ray_data_logging.yaml"


def _dotted_names(config: dict) -> list[str]:
    """Every class the logging config names: handlers' `class`, filters' and formatters' `()`."""
    names = []
    for section in ("handlers", "filters", "formatters"):
        for entry in config.get(section, {}).values():
            names += [entry[k] for k in ("class", "()") if k in entry]
    return names


def test_every_class_the_ray_data_logging_config_names_imports() -> None:
    config = yaml.safe_load(CONFIG.read_text())
    names = _dotted_names(config)
    assert any(n.startswith(("ray.data._internal", "ray._private")) for n in names)  # what this guards
    for name in names:
        module, _, attr = name.rpartition(".")
        obj = getattr(importlib.import_module(module), attr)
        assert isinstance(obj, type), name
        if attr.endswith("Handler"):
            assert issubclass(obj, logging.Handler), name
        if attr.endswith("Filter"):
            assert issubclass(obj, logging.Filter) or hasattr(obj, "filter"), name
