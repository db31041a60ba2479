"""The run folder lock (filelock on OUT/.lock): one holder, named in the refusal, gone with its process."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow.fs as pafs
import pytest

from audit.io.run_lock import hold_run_folder
from audit.io.shards import InputError
from audit.io.storage import Location, location

_HOLDER = """
import sys
from audit.io.run_lock import hold_run_folder
from audit.io.storage import location
with hold_run_folder(location(sys.argv[1]), "audit test-holder"):
    print("held", flush=True)
    sys.stdin.read()  # held until killed
"""


def test_a_killed_holder_releases_the_folder(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(InputError) as refused:
            with hold_run_folder(location(tmp_path)):
                pass
        msg = str(refused.value)
        assert "in use by another run" in msg and f"pid {holder.pid}" in msg and "audit test-holder" in msg
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
        with hold_run_folder(location(tmp_path)):  # the kernel let go with the process
            pass
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=30)


def test_the_lock_is_held_within_one_process_too(tmp_path: Path) -> None:
    with hold_run_folder(location(tmp_path)):
        with pytest.raises(InputError):
            with hold_run_folder(location(tmp_path)):
                pass
    with hold_run_folder(location(tmp_path)):  # released when the block ends
        pass


def test_an_object_storage_folder_has_no_lock(tmp_path: Path) -> None:
    remote = Location(pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem()), "run", "mem://run")
    assert not remote.is_local
    with hold_run_folder(remote):
        with hold_run_folder(remote):  # a second holder is not stopped
            pass
    assert not any(tmp_path.rglob(".lock"))
