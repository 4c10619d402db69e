"""The MCP face's tool table: one Action per tool (name, title, description, input model, hints, run), in the fixed
order of tools/list (MCP-20): the RPC tools in the bridge's order, the offline tools, then ``tool_batch``.

Each tool is a thin adapter over the core function its CLI command calls; the one sentence both faces start their
description with is in :mod:`mcb.summaries`, the one refusal table in :mod:`mcb.refusals`. A new tool is one
``Action`` in the list of its module (rpc.py, offline.py) and, for docs/mcp.md, one example in mcb.mcp.docs.
"""

from __future__ import annotations


def builtin_actions() -> list:
    """The built-in actions: RPC, offline, then tool_batch."""
    from mcb.mcp.tools.batch import BATCH_ACTION
    from mcb.mcp.tools.offline import OFFLINE_ACTIONS
    from mcb.mcp.tools.rpc import RPC_ACTIONS

    return [*RPC_ACTIONS, *OFFLINE_ACTIONS, BATCH_ACTION]
