"""`ray.executor: auto` by what the config's stages cost a byte and by the CPUs (audit/job/costs.py):
the reference config keeps `ray.local_max_bytes`, a lighter one stays in one process longer, more
CPUs go to Ray sooner, one CPU never, and a stage of the user's own counts as the reference.
(`wants_ray` itself also takes a Ray session this process holds: the sizes are checked on
`ray_from_bytes`, which `wants_ray` compares the input with.)"""
from __future__ import annotations

import importlib
import math

import pytest

from audit.config import AuditConfig, EvalSetConfig, StageConfig
from audit.job import costs
from audit.job.executor import wants_ray
from audit.tagger import _BUILT_IN, builtin_stage_names


def _config(cpus: int = 2, evals: bool = True, **sections) -> AuditConfig:
    cfg = AuditConfig(**sections)
    cfg.ray.num_cpus = cpus
    if evals:
        cfg.eval_sets = [EvalSetConfig(name="gsm8k", path="gsm8k.jsonl")]
    return cfg


def _spine(cpus: int = 2) -> AuditConfig:
    """bench_job.py's spine profile: length, charset, junk and exact duplicates alone."""
    cfg = _config(cpus, evals=False)
    cfg.languages.identify = cfg.lookup.passages = cfg.dedup.near = cfg.pii.enabled = False
    return cfg


def test_every_default_stage_with_eval_sets_keeps_the_measured_crossover():
    cfg = _config()
    assert builtin_stage_names(cfg) == list(costs.REFERENCE_STAGES)
    limit = cfg.ray.local_max_bytes
    assert costs.ray_from_bytes(cfg) == pytest.approx(limit)


def test_lighter_stages_stay_in_one_process_longer():
    limit = _config().ray.local_max_bytes
    spine = _spine()
    # measured: 30.9 MB of text (22 MB of files) 3.0-3.3 s in one process, 5.3 s on Ray
    assert costs.ray_from_bytes(spine) > 22_000_000
    assert 4 * limit < costs.ray_from_bytes(spine) < 8 * limit
    no_evals = _config(evals=False)
    assert costs.ray_from_bytes(_config()) < costs.ray_from_bytes(no_evals) < costs.ray_from_bytes(spine)
    # the dearer stages and tiers bring Ray sooner
    heavy = _config()
    heavy.contamination.semantic = True
    heavy.stats.tokenizer = "tokenizer.json"
    assert costs.ray_from_bytes(heavy) < limit / 2


def test_more_cpus_go_to_ray_sooner_and_one_cpu_never():
    assert costs.ray_from_bytes(_config(cpus=16)) < costs.ray_from_bytes(_config(cpus=4)) < costs.ray_from_bytes(_config())
    one = _config(cpus=1)
    assert costs.ray_from_bytes(one) == math.inf
    one.ray.executor = "ray"
    assert wants_ray(one, None, 0)  # forced, or --address: Ray whatever it costs
    assert wants_ray(_spine(), "10.0.0.1:6379", 0)


def test_a_stage_of_ones_own_counts_as_the_reference_at_least():
    spine = _spine()
    spine.stages = [StageConfig(use="mystages:Custom")]
    assert costs.ray_from_bytes(spine) == pytest.approx(spine.ray.local_max_bytes)
    heavy = _config()
    heavy.contamination.semantic = True
    light = costs.ray_from_bytes(heavy)
    heavy.stages = [StageConfig(use="mystages:Custom")]
    assert costs.ray_from_bytes(heavy) == pytest.approx(light)  # known dearer stays dearer


def test_the_cost_table_names_every_built_in_stage_and_its_word_readers():
    classes = {}
    for name, where, _ in _BUILT_IN:
        module, cls = where.split(":")
        classes[name] = getattr(importlib.import_module(module), cls)
        assert classes[name].name == name
    assert set(costs.SECONDS_PER_MB) == set(classes)
    assert costs.WORD_READERS == {n for n, c in classes.items() if "words" in c.reads}
