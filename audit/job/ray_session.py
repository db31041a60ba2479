"""Starting or joining Ray for the job, and readying its workers."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from audit.config import AuditConfig
from audit.io.shards import InputError


# The RayContext of the session start_ray started or joined (its dashboard's address).
_SESSION: dict[str, Any] = {}
DASHBOARD_HINT = 'pip install "ray[default]"'


def dashboard_installed() -> bool:
    """Whether Ray's dashboard can run here: ray[default]'s extra packages import (Ray's own test)."""
    try:
        import ray.dashboard.optional_deps  # noqa: F401
    except ImportError:
        return False
    return True


def session_line() -> str:
    """One line naming the Ray job and where to watch it: the dashboard's address, or how to get one."""
    import ray

    context = _SESSION.get("context")
    ours = context is not None and context.address_info.get("gcs_address") == ray.get_runtime_context().gcs_address
    return describe_session(ray.get_runtime_context().get_job_id(), context.dashboard_url if ours else None,
                            dashboard_installed())


def describe_session(job_id: str, dashboard_url: str | None, installed: bool) -> str:
    """The line of session_line: the job id, then the dashboard's address or why there is none."""
    if dashboard_url:
        return f"[audit] Ray job {job_id}: dashboard http://{dashboard_url.removeprefix('http://')}"
    if not installed:
        return f"[audit] Ray job {job_id}: no dashboard ({DASHBOARD_HINT} to watch the run in one)"
    return f"[audit] Ray job {job_id}: the Ray session runs no dashboard (`ray start` starts one by default)"


def start_ray(config: AuditConfig, address: str | None) -> float:
    """Join `address` or start a local Ray sized for this machine; returns seconds taken."""
    import logging

    import ray

    t0 = time.perf_counter()
    if not ray.is_initialized():
        # Ray's own start-up chatter (and the C++ core's) would drown the job's progress lines.
        os.environ.setdefault("RAY_DEDUP_LOGS", "0")
        os.environ.setdefault("RAY_DATA_LOGGING_CONFIG", str(Path(__file__).parent.parent / "ray_data_logging.yaml"))
        logging.getLogger("ray").setLevel(logging.ERROR)
        kwargs: dict[str, Any] = {"configure_logging": True, "logging_level": "error"}
        if address:
            probe_address(address)
            _join(address, kwargs)
        else:
            # "local": a new Ray of our own, whatever RAY_ADDRESS, a running `ray start` or a stale
            # /tmp/ray/ray_current_cluster say (joining one by accident failed the run); its
            # dashboard where ray[default] is installed (Ray refuses to start one without it)
            _SESSION["context"] = ray.init(
                address="local", num_cpus=config.ray.num_cpus or os.cpu_count() or 1,
                object_store_memory=config.ray.object_store_memory, include_dashboard=dashboard_installed(),
                **kwargs)
            _SESSION["local"] = True  # its processes are this one's to end (end_local_ray)
    # No blocking warm-up of the workers here: a run's workers import the stages' code and load
    # their models by RayExecutor.warm, while the driver builds the eval index (3.1 s saved on
    # the 31 MB bench corpus, measured). Nor Ray Data's settings: see use_ray_data.
    return time.perf_counter() - t0


def use_ray_data() -> None:
    """Ray Data's settings for the job's only use of it, the key shuffles of a large global pass:
    set where that use begins, as importing Ray Data took 0.4-0.7 s of the driver's time between
    Ray's start and the workers' warm-up, in runs that never shuffle (measured, 2 cores)."""
    import ray.data
    from ray.data.context import ShuffleStrategy

    ctx = ray.data.DataContext.get_current()
    # DataContext fields documented in its docstring: no progress bars or execution banners among
    # the job's progress lines; no CPUs held back per operator, which on a few CPUs only delays the
    # shuffle's next stage (a 200k-record global pass: 4.8-5.7 s without, 6.5 s with, measured).
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    ctx.op_resource_reservation_enabled = False
    # Sort-based shuffles, whose tasks start at once where hash shuffle's aggregator actors cost
    # ~5 s a pass (measured: a 50k-record pass 6.1 s hash, 0.9 s sort). ShuffleStrategy is a Ray
    # DeveloperAPI (alpha), set because the default moves between releases (2.60: SHUFFLE_V2).
    ctx.shuffle_strategy = ShuffleStrategy.SORT_SHUFFLE_PULL_BASED


def _join(address: str, kwargs: dict[str, Any]) -> None:
    """ray.init(address): on failure one line naming the address and the cause. The C++ core
    prints a warning a second while it retries (a wrong token: ~20 of them), so its stderr is
    held aside during the join and read for the cause."""
    import sys
    import tempfile

    import ray

    with tempfile.TemporaryFile() as held:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(held.fileno(), 2)
        failure: Exception | None = None
        try:
            _SESSION["context"] = ray.init(address=address, **kwargs)
        except (ConnectionError, TimeoutError, ValueError, RuntimeError) as e:
            failure = e
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        if failure is None:
            return
        held.seek(0)
        said = held.read().decode("utf-8", "replace")
    if "InvalidAuthToken" in said or "Unauthenticated" in said:
        # a driver sends no token at all unless RAY_AUTH_MODE=token (measured with Ray 2.60)
        fix = ("set RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH to the cluster's token" if
               os.environ.get("RAY_AUTH_MODE") == "token" else
               "set RAY_AUTH_MODE=token and RAY_AUTH_TOKEN (or RAY_AUTH_TOKEN_PATH) to the cluster's token")
        raise InputError(f"--address {address}: the cluster refused this driver (token authentication, on by "
                         f"default for `ray start`): {fix} (~/.ray/auth_token on its head node)")
    raise InputError(f"--address {address}: cannot join the Ray cluster: {failure}")


def probe_address(address: str, timeout: float = 5.0) -> None:
    """Fail within `timeout` seconds, naming the address, when nothing listens there (Ray itself
    retries a dead address for a minute or more)."""
    import socket

    rest = address.split("://", 1)[-1]
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        raise InputError(f"--address {address}: expected HOST:PORT (the head node's GCS port, 6379 by default)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        raise InputError(f"--address {address}: nothing answers at {host}:{port} ({e.strerror or e}): start the "
                         "cluster with `ray start --head` or check the address") from None


def task_slots(config: AuditConfig) -> int:
    """How many read-and-measure tasks the cluster runs at once."""
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1) // config.ray.task_cpus))


def end_local_ray() -> bool:
    """End every process of the local Ray that `start_ray` started in this process (GCS, raylet,
    workers, agents: this process's descendants), for a process about to exit; returns whether
    there was one. The tree is stopped (SIGSTOP) until no new process appears, so that none starts
    another between the look and the kill, then SIGKILLed: none runs on, none is left behind.
    Ray's own exit (ray.shutdown, at exit) stops them one by one with a grace period each: with the
    interpreter's teardown, 2.5 s after a finished 1M-record run (measured, 2 cores). The kernel's
    freeing of the killed workers' memory is not waited for (1-5 s here for two workers holding
    the models, the same as after Ray's own stop, which does not wait for it either). The job's
    outputs are all written and closed by then."""
    import signal

    if not _SESSION.pop("local", False):
        return False
    seen: set[int] = set()
    while True:
        new = [pid for pid in descendants(os.getpid()) if pid not in seen]
        if not new:
            break
        for pid in new:
            _signal(pid, signal.SIGSTOP)
        seen.update(new)
    for pid in seen:
        _signal(pid, signal.SIGKILL)
    return True


def _signal(pid: int, sig: int) -> None:
    """os.kill, for a process that may have ended meanwhile."""
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def descendants(pid: int) -> list[int]:
    """Every process `pid` started, its children's children included, parents first (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()  # after the name: state, ppid, ...
        except OSError:
            continue  # ended meanwhile
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(0), []):
            out.append(child)
            todo.append(child)
    return out
