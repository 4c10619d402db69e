"""The MCP face's tool table: one Action per tool (name, title, description, input model, hints, run), in the fixed
order of tools/list (MCP-20): the RPC tools in the bridge's order, the offline tools, the build workflows
(building.py: ``schem_build``, ``region_export``), then ``tool_batch``.

Each tool is a thin adapter over the core function its CLI command calls; the one sentence both faces start their
description with is in :mod:`mcb.summaries`, the one refusal table in :mod:`mcb.refusals`. A new tool is one
``Action`` in the list of its module (rpc.py, offline.py) and, for docs/mcp.md, one example in mcb.mcp.docs.
"""

from __future__ import annotations

from typing import Any


def described(name: str, title: str, details: str, model: Any, hints: Any, run: Any, group: str):
    """A built-in tool: its description is the tool's one summary (mcb.summaries, which the CLI command's help
    starts with too), then ``details``, what only MCP says (argument names, pagination, the next call)."""
    from mcb.mcp.actions import Action
    from mcb.summaries import SUMMARIES

    return Action(
        name=name,
        title=title,
        description=f"{SUMMARIES[name]} {details}",
        input_model=model,
        hints=hints,
        run=run,
        group=group,
    )


def builtin_actions() -> list:
    """The built-in actions: RPC, offline, the build workflows, then tool_batch."""
    from mcb.mcp.tools.batch import BATCH_ACTION
    from mcb.mcp.tools.building import BUILD_ACTIONS
    from mcb.mcp.tools.offline import OFFLINE_ACTIONS
    from mcb.mcp.tools.rpc import RPC_ACTIONS

    return [*RPC_ACTIONS, *OFFLINE_ACTIONS, *BUILD_ACTIONS, BATCH_ACTION]
