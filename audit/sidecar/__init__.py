"""The sidecar: watch what a training job consumes and raise the alarm before the loss does.

- `Sidecar(config).observe(records, step=..., rank=...)`: the Python API for a training loop
  (audit/sidecar/api.py); non-blocking, measuring in a worker process or thread.
- `audit sidecar CONFIG [--metrics-port N]`: the command over JSON lines on standard input or a
  folder of micro-batch dumps (audit/sidecar/service.py; `cmd_sidecar`, `add_subparser`).
- Measuring reuses the audit job's stages and drift module (audit/sidecar/monitor.py); windows
  and references in windows.py, alert episodes in alerts.py, Prometheus metrics and the
  /metrics + /status endpoint in metrics.py, input sources in sources.py.
"""
from audit.sidecar.api import Sidecar, SidecarError
from audit.sidecar.service import add_subparser, cmd_sidecar, run_sidecar

__all__ = ["Sidecar", "SidecarError", "add_subparser", "cmd_sidecar", "run_sidecar"]
