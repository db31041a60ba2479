"""The job's executor: one way to run a pass's per-shard and per-part work, two backends.

A pass is a plain function applied to each of its items (a shard to scan, a measurement part to
judge, an index bucket to write) with the same common arguments; it returns a small typed result.

- `RayExecutor` runs each call as a Ray Core task (retried up to 3 times when its worker, node or
  object is lost; never on an error of ours), keeps a bounded window of tasks in flight with
  `ray.wait`, puts the common arguments and heavy shared state into the object store once, and
  yields results as they finish.
- `LocalExecutor` runs the very same functions in this process, one after the other, with no Ray
  start at all: for small inputs, unit tests and `audit decide`, where starting Ray (4-17 s)
  and shipping work to workers cost more than a second core gains (crossover measured on 2
  cores: see RayConfig.local_max_bytes in audit/config.py).

`make_executor` picks one: `--address` always means Ray; `ray.executor: ray|local` forces one;
`auto` uses a Ray session already running in this process, else Ray from
`ray.local_max_bytes` bytes of input up, scaled by what the config's stages cost a byte and by the
CPUs (audit/job/costs.py), else this process.
"""
from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from audit.config import AuditConfig

T = TypeVar("T")
R = TypeVar("R")

# Tasks retried after a lost worker, node or object (Ray Core's max_retries; errors raised by
# our own code are not retried: they are bugs or bad input, and fail the pass at once).
TASK_RETRIES = 3


@dataclass(frozen=True)
class Shared(Generic[T]):
    """Heavy read-only state every call of a pass needs (eval index, tokenizer, blocklist): in
    Ray's object store once, or held in this process. `get()` returns it inside a call."""

    value: Any = None
    ref: list[Any] | None = field(default=None, repr=False)  # [ObjectRef]: a list keeps Ray from resolving it per task

    def get(self) -> T:
        if self.ref is None:
            return self.value
        import ray

        return ray.get(self.ref[0])


def _call(fn: Callable[..., R], item: Any, common: tuple[Any, ...]) -> R:
    """What a Ray task runs: `fn(item, *common)` (common arrives resolved from the object store)."""
    return fn(item, *common)


class LocalExecutor:
    """Runs a pass's calls in this process, in order. No Ray."""

    uses_ray = False
    slots = 1
    start_seconds = 0.0
    why = ""  # why this backend (make_executor, plan._start): summary.json "executor"

    def __init__(self) -> None:
        self._warming: Future[Any] | None = None

    def put(self, value: T) -> Shared[T]:
        """Shared state, held as is."""
        return Shared(value=value)

    def map(self, fn: Callable[..., R], items: Iterable[T], *common: Any, name: str = "",
            num_cpus: float = 1.0) -> Iterator[tuple[T, R]]:
        """(item, fn(item, *common)) for each item, as each finishes."""
        if self._warming is not None:  # a failure while warming is this pass's failure, raised here
            warming, self._warming = self._warming, None
            warming.result()
        for item in items:
            yield item, fn(item, *common)

    def map_kept(self, fn: Callable[..., R], items: Iterable[T], *common: Any, name: str = "",
                 num_cpus: float = 1.0) -> list[Shared[R]]:
        """fn(item, *common) for each item, each result held as shared state, in item order."""
        return [Shared(value=result) for _, result in self.map(fn, items, *common)]

    def call(self, fn: Callable[..., R], *args: Any, name: str = "", num_cpus: float = 1.0) -> R:
        """One call of `fn`, here."""
        return fn(*args)

    def warm(self, fn: Callable[..., Any], *args: Any, num_cpus: float = 1.0) -> None:
        """Start `fn(*args)` in a thread of this process now (models load while the caller builds
        the eval index: 1.1 s of 3.2 s saved on the bench corpus, measured); the next `map` waits
        for it first."""
        pool = ThreadPoolExecutor(1, thread_name_prefix="audit-warm")
        self._warming = pool.submit(fn, *args)
        pool.shutdown(wait=False)  # the thread ends with fn


class RayExecutor:
    """Runs a pass's calls as Ray Core tasks on the session `start_ray` started or joined."""

    uses_ray = True
    why = ""  # why this backend (make_executor, plan._start): summary.json "executor"

    def __init__(self, config: AuditConfig, address: str | None, window: int | None = None) -> None:
        from audit.job.ray_session import start_ray, task_slots

        self.start_seconds = start_ray(config, address)
        self.slots = task_slots(config)
        # Tasks in flight at once: one running per slot and one queued behind each, so a slot
        # never waits on the driver; bounded, so a million-shard pass holds few refs.
        self.window = window or 2 * self.slots
        self._warming: list[Any] = []

    def put(self, value: T) -> Shared[T]:
        """Shared state, put into the object store once for every task of the run."""
        import ray

        return Shared(ref=[ray.put(value)])

    def map(self, fn: Callable[..., R], items: Iterable[T], *common: Any, name: str = "",
            num_cpus: float = 1.0) -> Iterator[tuple[T, R]]:
        """(item, fn(item, *common)) for each item, as each task finishes (not in item order).

        A task whose worker is lost is retried up to TASK_RETRIES times, then its error is
        raised here; leaving the loop early (an error, the canary) cancels the tasks in flight."""
        import ray

        warming, self._warming = self._warming, []
        task = ray.remote(_call).options(num_cpus=num_cpus, max_retries=TASK_RETRIES, retry_exceptions=False,
                                         name=name or getattr(fn, "__name__", "task"))
        common_ref = ray.put(common)  # once, not pickled into every task
        pending: dict[Any, T] = {}
        items = iter(items)
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < self.window:
                    try:
                        item = next(items)
                    except StopIteration:
                        exhausted = True
                        break
                    pending[task.remote(fn, item, common_ref)] = item
                if warming:  # a failure while warming is this pass's failure, raised here
                    # once the first tasks are queued: a worker done warming starts one at once
                    # instead of waiting for the others to be done too
                    ray.get(warming)
                    warming = []
                if not pending:
                    return
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    item = pending.pop(ref)
                    yield item, ray.get(ref)
        finally:
            for ref in pending:  # the caller stopped early: what is left would only be thrown away
                ray.cancel(ref)

    def map_kept(self, fn: Callable[..., R], items: Iterable[T], *common: Any, name: str = "",
                 num_cpus: float = 1.0) -> list[Shared[R]]:
        """fn(item, *common) for each item as a task whose result stays in the object store (the
        driver never holds it: a later pass's tasks `get()` it), in item order, once all have
        finished. A task's error is raised where its result is read."""
        import ray

        task = ray.remote(_call).options(num_cpus=num_cpus, max_retries=TASK_RETRIES, retry_exceptions=False,
                                         name=name or getattr(fn, "__name__", "task"))
        common_ref = ray.put(common)
        refs: list[Any] = []
        pending: list[Any] = []
        for item in items:
            if len(pending) >= self.window:
                _, pending = ray.wait(pending, num_returns=1, fetch_local=False)  # no copy to this node
            refs.append(task.remote(fn, item, common_ref))
            pending.append(refs[-1])
        if pending:
            ray.wait(pending, num_returns=len(pending), fetch_local=False)
        return [Shared(ref=[r]) for r in refs]

    def warm(self, fn: Callable[..., Any], *args: Any, num_cpus: float = 1.0) -> None:
        """Start `fn(*args)` on every slot's worker now, without waiting (models load there while
        the driver goes on); the next `map` waits for them first."""
        import ray

        task = ray.remote(fn).options(num_cpus=num_cpus, max_retries=TASK_RETRIES, retry_exceptions=False,
                                      name=f"warm_{getattr(fn, '__name__', 'task')}")
        self._warming += [task.remote(*args) for _ in range(self.slots)]

    def call(self, fn: Callable[..., R], *args: Any, name: str = "", num_cpus: float = 1.0) -> R:
        """One call of `fn` as a task (on a worker: the driver's memory stays small)."""
        import ray

        return ray.get(ray.remote(fn).options(num_cpus=num_cpus, max_retries=TASK_RETRIES, retry_exceptions=False,
                                              name=name or getattr(fn, "__name__", "task")).remote(*args))


Executor = LocalExecutor | RayExecutor


# Judging a byte costs a small share of measuring it (the 31 MB bench corpus: 31 s to measure in
# one process, 0.9 s to judge, dedup and index), so a run that only judges (`audit decide`) stays
# in this process up to this many times `ray.local_max_bytes`.
JUDGE_ONLY_FACTOR = 25


def choose(config: AuditConfig, address: str | None, input_bytes: int,
           judge_only: bool = False) -> tuple[bool, str]:
    """(whether this run goes to Ray, why in a few words: summary.json "executor"); see the
    module's docstring for the rule; `judge_only`: a pass that measures nothing (`audit decide`,
    `audit export`), whatever the config's stages."""
    if address:
        return True, "--address"
    mode = config.ray.executor
    if mode != "auto":
        return mode == "ray", f"ray.executor: {mode}"
    import sys

    if "ray" in sys.modules:  # a session this process already holds costs nothing more to use
        import ray

        if ray.is_initialized():
            return True, "a Ray session this process holds"
    if judge_only:
        limit = config.ray.local_max_bytes * JUDGE_ONLY_FACTOR
        what = "judging"
    else:
        from audit.job.costs import ray_from_bytes

        limit = ray_from_bytes(config)
        what = "these stages"
    if limit == math.inf:
        return False, "auto: one CPU"
    side = ">=" if input_bytes >= limit else "<"
    return input_bytes >= limit, (f"auto: {input_bytes / 1e6:.1f} MB of input {side} {limit / 1e6:.1f} MB, from "
                                  f"which Ray pays for {what} on {config.ray.num_cpus or os.cpu_count() or 1} CPUs")


def wants_ray(config: AuditConfig, address: str | None, input_bytes: int, judge_only: bool = False) -> bool:
    """Whether this run goes to Ray (`choose`)."""
    return choose(config, address, input_bytes, judge_only)[0]


def make_executor(config: AuditConfig, address: str | None, input_bytes: int, judge_only: bool = False) -> Executor:
    """The backend for a run over `input_bytes` bytes of input (Ray is started or joined here)."""
    to_ray, why = choose(config, address, input_bytes, judge_only)
    ex: Executor = RayExecutor(config, address) if to_ray else LocalExecutor()
    ex.why = why
    return ex
