"""RPC client for the minecraft-builder plugin and `mcb serve` (no Typer, no Rich, never imports `mcb.server`).

Entry points:
- :class:`mcb.client.methods.McbClient` — ``client.call(method, params)`` plus one typed helper per RPC method;
- :mod:`mcb.client.operations` — ``follow_operation`` (at the plugin's pace) / ``outcome_error``; every write runs on
  the one engine of :mod:`mcb.batch`;
- :mod:`mcb.client.models` — pydantic models of every result, wire names kept.
"""

from mcb.client.methods import McbClient

__all__ = ["McbClient"]
