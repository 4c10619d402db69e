"""Diagnostics shared by `mcb schem validate`, `mcb recipe lint` and `mcb terrain lint`, and their formatters."""

from mcb.reports.model import Diagnostic, FileReport, Severity

__all__ = ["Diagnostic", "FileReport", "Severity"]
