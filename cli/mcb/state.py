"""The per-invocation state the root options set (no Typer here: the console script reports an early Ctrl-C)."""

from __future__ import annotations

from dataclasses import dataclass

from mcb.terminal import Terminal


@dataclass
class AppState:
    json: bool = False
    verbosity: int = 0
    no_color: bool = False
    server: str | None = None
    profile: str | None = None
    timeout: float | None = None
    commands: tuple = ()  # the command at work, then its groups up to the root (for the words of its errors)

    def terminal(self, json_flag: bool = False) -> Terminal:
        return Terminal(json_mode=self.json or json_flag, verbosity=self.verbosity, no_color=self.no_color)
