"""QA fixtures: the command tests' live-server fixtures (`mcb`, `rpc_env`; `live_server` is the root one) reused as they are."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "_commands_conftest", Path(__file__).parents[1] / "commands" / "conftest.py"
)
_commands = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_commands)

rpc_env = _commands.rpc_env
mcb = _commands.mcb
slow_mcb = _commands.slow_mcb
