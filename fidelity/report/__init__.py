"""The curator's report: OUT/report.html, one self-contained page built from the run store."""

from fidelity.report.page import REPORT_NAME, write_report

__all__ = ["REPORT_NAME", "write_report"]
