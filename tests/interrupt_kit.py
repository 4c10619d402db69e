"""Popen keyword arguments for a child that a test interrupts with SIGINT.

A shell that starts pytest in the background hands it an ignored SIGINT, and children inherit that disposition; the
child gets the default one a terminal gives, so the test means the same however pytest was started."""

from __future__ import annotations

import signal


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


INTERRUPTIBLE = {"preexec_fn": _default_sigint}
