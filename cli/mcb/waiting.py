"""How long mcb waits for an operation, and how often it looks: one object, declared once for every face.

Plain data with no imports, so the command line's ``--wait-timeout`` option takes its default from here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WaitPolicy:
    timeout: float = 600.0  # seconds one operation may take before mcb stops waiting (it keeps running)
    interval: float = 0.02  # the shortest pause between two status calls
    progress_every: float = 0.5  # the longest pause: a bar moves at least this often


DEFAULT = WaitPolicy()
