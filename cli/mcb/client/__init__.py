"""RPC client for the minecraft-builder plugin and `mcb serve` (no Typer, no Rich, never imports `mcb.server`).

Entry points:
- :class:`mcb.client.methods.McbClient` — ``client.call(method, params)`` plus one typed helper per RPC method;
- :mod:`mcb.client.workflow` — ``run_plan`` / ``apply_plan`` / ``wait_for_operation`` / ``outcome_error``;
- :mod:`mcb.client.models` — pydantic models of every result, wire names kept.
"""

from mcb.client.methods import McbClient

__all__ = ["McbClient"]
