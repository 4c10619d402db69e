"""What each tool does, in one sentence that both faces show: the MCP description starts with it, and the CLI
command's help starts with it (naming the RPC method an online command calls). Each face adds only what is its
own after it: flags and examples on the CLI, argument names, pagination and the next call over MCP.

Plain data, imported by the command modules as they define their commands: nothing to import here.
"""

from __future__ import annotations

# The placement of a schematic file (mcb.building.placement.PlacementOptions): one sentence per field, the same
# for `mcb build`/`verify`/`materials` options, batch `schematic` steps and the MCP tools' arguments.
PLACEMENT_FIELDS: dict[str, str] = {
    "target": "Where the file's anchor goes, x,y,z (its paste offset applies, as WorldEdit's).",
    "rotation": "Clockwise degrees seen from above, after the mirror: 0, 90, 180 or 270.",
    "mirror": "Mirror east-west (x) or north-south (z) before turning.",
    "skip_air": "Leave the world as it is where the file has air.",
    "keep_existing": "Place only where the world is air now.",
    "drop_extras": "Build block states without block-entity data and entities (a file with either is refused "
    "otherwise).",
    "replace_unknown": "A block state to put where the file has a block the target release does not know "
    "(default: refuse, naming them).",
}

SUMMARIES: dict[str, str] = {
    # offline
    "schem_validate": "Check schematics (Sponge, Litematica, structure .nbt, legacy .schematic) the way the server "
    "will import them, or against their own format's rules.",
    "schem_info": "Describe a schematic in any format: format and version, DataVersion, regions, size, anchor, the "
    "palette with counts, block entities, entities, what the upgrade to the target release would "
    "change, and whether the server would import it.",
    "schem_rotate": "Rotate a schematic in any format clockwise (90, 180 or 270 degrees, seen from above): blocks, "
    "block states, block entities, entities and biomes, with the paste offset turned by the "
    "server's formula.",
    "schem_mirror": "Mirror a schematic across a vertical plane through its paste anchor (axis x or z).",
    "schem_convert": "Rewrite a schematic in any format as Sponge v2 in the server's exact layout (WorldEdit's "
    "absolute Offset normalised), Sponge v3, Litematica or a structure .nbt, states upgraded to the "
    "target release.",
    "schem_extras": "Write the block-entity and entity data a build of a schematic leaves out (container items, "
    "sign text, item frames, armour stands) as a datapack function of vanilla commands, at the build's target, "
    "rotation and mirror, upgraded to the target release.",
    "schem_render": "Draw a schematic as a PNG: a top-down map shaded by height, an isometric view from the "
    "south-east, or both.",
    "schem_materials": "List the items a schematic takes to build, counted as Litematica's material list counts "
    "them, in stacks and shulker boxes; placed at a target in the live world, only what is still to place there, "
    "and what stands in the way.",
    "recipe_lint": "Check build recipes the way the server will: JSON syntax, the recipe schema, block states, "
    "bounds and every budget.",
    "recipe_compile": "Compile a recipe offline exactly as build_prepare does: block count, bounds, palette, "
    "budgets and the blocks in plan order.",
    "block_check": "Validate block states against a Minecraft release and give each one's canonical form (every "
    "property, defaults filled).",
    "block_describe": "Describe a block's properties with their allowed values, defaults, default state and "
    "behaviour in one of the packaged releases.",
    "terrain_preview_offline": "Compute a terrain recipe's height-map preview locally, shaped like terrain_preview.",
    # the live server
    "project_context": "Show the live project: area, limits, parts, recent operations, material catalog and terrain "
    "capabilities.",
    "material_search": "Find the exact material ids whose id contains every word of a query.",
    "material_describe": "Describe one material as the live server knows it: default state, property values and "
    "behaviour.",
    "region_inspect": "Read a box of at most 4096 blocks inside the project area: its palette with counts, or every "
    "block's state.",
    "build_prepare": "Compile a recipe into a plan against the live world; nothing is written yet.",
    "build_apply": "Start writing a prepared plan; the same plan and idempotency key always give the same operation.",
    "operation_status": "Show an operation's status (queued, applying, applied, conflict, cancelled, failed, "
    "recovery_required), its counters and conflicts.",
    "operation_cancel": "Stop an operation at its next step, for good; blocks already written stay and can be undone.",
    "operation_undo_prepare": "Prepare the plan that restores what a finished operation wrote, if nothing changed "
    "those blocks since.",
    "part_define": "Name the blocks an applied operation wrote as a part.",
    "part_get": "Show a named part: its block count, bounds, protection and the operation it came from.",
    "camera_list": "List the saved spectator cameras and whether a camera account is configured.",
    "camera_capture": "Take a picture with the spectator camera, from a saved camera or a pose.",
    "asset_list": "List the schematics in the server's library.",
    "schematic_export": "Save a box of the live world as a new schematic in the server's library.",
    "schematic_import_prepare": "Prepare the plan that places a library schematic at a target, turned clockwise.",
    "terrain_preview": "Check a terrain recipe and return its height-map preview (PNG) and tiling.",
    "terrain_prepare": "Prepare tiles of a previewed terrain recipe as plans; tiles never overwrite buildings.",
    "terrain_brush_prepare": "Raise, lower, flatten or smooth the live surface inside a scan box.",
    # workflows on the live server
    "schem_build": "Build a schematic file of any size into the live world at a target, resumably, undoable as one.",
    "region_export": "Save a box of the live world of any size as a local schematic file.",
}

# tool -> the CLI command that runs it (`mcb terrain preview --offline` runs terrain_preview_offline)
CLI_COMMANDS: dict[str, str] = {
    "schem_validate": "schem validate",
    "schem_info": "schem info",
    "schem_rotate": "schem rotate",
    "schem_mirror": "schem mirror",
    "schem_convert": "schem convert",
    "schem_render": "schem render",
    "schem_materials": "materials",
    "schem_extras": "schem extras",
    "recipe_lint": "recipe lint",
    "recipe_compile": "recipe compile",
    "block_check": "block check",
    "block_describe": "block describe",
    "project_context": "context",
    "material_search": "material search",
    "material_describe": "material describe",
    "region_inspect": "inspect",
    "build_prepare": "prepare",
    "build_apply": "apply",
    "operation_status": "status",
    "operation_cancel": "cancel",
    "operation_undo_prepare": "undo",
    "part_define": "part define",
    "part_get": "part get",
    "camera_list": "camera list",
    "camera_capture": "camera capture",
    "asset_list": "asset list",
    "schematic_export": "export",
    "schematic_import_prepare": "import-prepare",
    "terrain_preview": "terrain preview",
    "terrain_prepare": "terrain prepare",
    "terrain_brush_prepare": "terrain brush",
}
OFFLINE_TOOLS = frozenset(
    name for name in SUMMARIES if name.startswith(("schem_", "recipe_", "block_")) or name == "terrain_preview_offline"
)


def cli_summary(tool: str) -> str:
    """The first paragraph of the CLI command's help: the summary, naming the RPC method an online command calls."""
    text = SUMMARIES[tool]
    return text if tool in OFFLINE_TOOLS else f"{text[:-1]} (`{tool}`)."
