"""The run's report page (report.html) and the small SVG charts it and the notebook draw."""
from audit.report.html import render_report, write_report

__all__ = ["render_report", "write_report"]
