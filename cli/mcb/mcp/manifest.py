"""What the server publishes: the instructions, the tools/list entries, resources and the refusal table."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mcb.mcp.actions import Action, Outcome
from mcb.mcp.arguments import published_schema

if TYPE_CHECKING:
    from mcb.mcp.session import Session

INSTRUCTIONS = (
    "mcb: the minecraft-builder plugin's agent tools plus offline tools for schematics, recipes, blocks and terrain. "
    "Against the live server: call project_context first, then region_inspect to read the area. To change the "
    "world, prepare a plan (build_prepare, schematic_import_prepare, terrain_prepare, terrain_brush_prepare or "
    "operation_undo_prepare) and read its summary; then call build_apply with plan_id, plan_hash and a stable "
    "idempotency_key; then poll operation_status until it reports applied, conflict, failed, cancelled or "
    "recovery_required. Stop on a conflict and look again before preparing anew. Treat an unavailable camera as "
    "'visually unverified'. After an unknown outcome, repeat build_apply only with the same idempotency_key. "
    "A schematic file is built by schem_build (dry_run first; undo reverts it), which plans, applies and follows "
    "for you. The offline tools (schem_* but schem_build, and schem_materials with a target; recipe_*, block_*, "
    "terrain_preview_offline) need no server. A refusal's "
    "error.data carries its remedy: act on retry_with, field, next_call, restart_with or retry_after_ms."
)


def tool_entry(action: Action) -> dict[str, Any]:
    hints = action.hints
    return {
        "name": action.name,
        "title": action.title,
        "description": action.description,
        "inputSchema": published_schema(action),
        "annotations": {
            "title": action.title,
            "readOnlyHint": hints.read_only,
            "destructiveHint": hints.destructive,
            "idempotentHint": hints.idempotent,
            "openWorldHint": hints.open_world,
        },
        "_meta": {"mcb/group": action.group},
    }


def tools(actions: list[Action]) -> list[dict[str, Any]]:
    return [tool_entry(action) for action in actions]


RESOURCES = [
    {
        "uri": "mcb://project/context",
        "name": "project_context",
        "title": "Project context (live)",
        "description": "The live project overview, identical to the project_context tool's result.",
        "mimeType": "application/json",
    },
    {
        "uri": "mcb://schema/recipe",
        "name": "recipe_schema",
        "title": "Recipe JSON Schema",
        "description": "The recipe JSON Schema (draft 2020-12), as mcb recipe schema prints it.",
        "mimeType": "application/schema+json",
    },
    {
        "uri": "mcb://schema/batch",
        "name": "batch_schema",
        "title": "Batch file JSON Schema",
        "description": "The JSON Schema of mcb batch files (recipes/batch.schema.json).",
        "mimeType": "application/schema+json",
    },
    {
        "uri": "mcb://extensions",
        "name": "extensions",
        "title": "Extensions",
        "description": "Each mcb.tools extension: name, distribution, version, status (loaded, disabled, failed), "
        "its tools and, when it failed, why.",
        "mimeType": "application/json",
    },
]
RESOURCE_URIS = frozenset(item["uri"] for item in RESOURCES)
LIVE_RESOURCE_URIS = frozenset({"mcb://project/context"})  # read from the server: hidden by --offline, as its tool


def resources(offline: bool) -> list[dict[str, Any]]:
    """The resources a session lists: under --offline, none that needs the live server."""
    return [item for item in RESOURCES if not (offline and item["uri"] in LIVE_RESOURCE_URIS)]


def read_resource(uri: str, session: Session) -> tuple[str, str, tuple[int, str]]:
    """(text, mimeType, (ttlMs, cacheScope)) for a listed URI."""
    if uri == "mcb://project/context":
        return project_context_text(session), "application/json", (0, "private")
    if uri == "mcb://schema/recipe":
        from mcb.recipes.model import schema_text

        return schema_text(), "application/schema+json", (3_600_000, "public")
    if uri == "mcb://schema/batch":
        from mcb.batch.model import batch_schema_text

        return batch_schema_text(), "application/schema+json", (3_600_000, "public")
    if uri == "mcb://extensions":
        reports = [report.to_dict() for report in session.catalog.extensions]
        return json.dumps({"extensions": reports}, separators=(",", ":")), "application/json", (3_600_000, "private")
    raise KeyError(uri)


def project_context_text(session: Session) -> str:
    """The same JSON the project_context tool returns as structuredContent (MCP-58)."""
    from mcb.mcp.context import CallContext

    action = session.catalog.by_name()["project_context"]
    context = CallContext(progress_token=None, notify=session.send, make_client=session.make_client)
    try:
        outcome: Outcome = action.run(action.input_model(), context)
    finally:
        context.close()
    return json.dumps(outcome.data, ensure_ascii=False, separators=(",", ":"))


# -- the refusal table (MCP-33) -----------------------------------------------------------------------------------

FACE_REMEDIES = {
    "invalid_argument": "field (the first argument at fault), with unknown/missing/accepted/did_you_mean",
    "path_denied": "field, and restart_with --root/--allow-any-path",
    "context_limit": "retry_with {detail: summary} or a smaller {limit} measured to fit; else no_remedy",
}
FACE_WITHOUT_REMEDY = {
    "internal": "a bug in mcb: the traceback is on stderr",
    "invalid_image": "the picture itself is broken or too large; no argument fixes it",
}


def refusal_table() -> dict[str, Any]:
    """Every code mcb can emit, with its remedy; the RPC catalog contributes the plugin's codes (§2.4)."""
    from mcb.mcp.refusals import refusal_codes
    from mcb.mcp.tools.adapters import REFUSAL_CODES as OFFLINE_REMEDIES

    plugin = refusal_codes()
    remedied = {**plugin["remedied"], **OFFLINE_REMEDIES, **FACE_REMEDIES}
    without = {**plugin["without_remedy"], **FACE_WITHOUT_REMEDY}
    # One row per code: the face's own entry (context_limit's measured narrowing) wins over the plugin default.
    return {
        "remedied": remedied,
        "without_remedy": {code: why for code, why in without.items() if code not in FACE_REMEDIES},
    }


def dump(session: Session) -> dict[str, Any]:
    return {
        "tools": session.tools_list,
        "refusals": refusal_table(),
        "extensions": [report.to_dict() for report in session.catalog.extensions],
    }
