"""Thin command modules: parse arguments, call one core function, hand the result to ``mcb.terminal``.

``COMMANDS`` is what the root needs to list a command without importing it: the module that registers it (each
module exposes ``register(app: typer.Typer)``), its help panel and its one-line help. A test keeps the one-line
help equal to the first paragraph of the command's own help.
"""

from __future__ import annotations

from mcb.summaries import cli_summary

OFFLINE = "Offline tools"
READ = "Server: read"
WRITE = "Server: write"
WORKFLOWS = "Workflows"
ADMIN = "Administration"

# name -> (module under mcb.commands, help panel, one-line help); the order is the order of `mcb --help`.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "block": (
        "block",
        OFFLINE,
        "Validate and describe block states offline (vanilla registry, default Minecraft 26.2).",
    ),
    "schem": (
        "schem",
        OFFLINE,
        "Schematics offline, in every format (Sponge .schem v1-v3, Litematica .litematic, "
        "structure .nbt, legacy .schematic): validate, inspect, convert, rotate, mirror, render, and the data a "
        "build leaves out (extras).",
    ),
    "materials": ("materials", OFFLINE, cli_summary("schem_materials")),
    "recipe": (
        "recipe",
        OFFLINE,
        "Build recipes (build_prepare.recipe) offline: lint with line numbers, compile "
        "exactly as the server does, format, print the JSON Schema.",
    ),
    "terrain": (
        "terrain",
        OFFLINE,
        "Terrain recipes and brushes: lint, preview (offline or via the server), tiles, prepare/apply, brush.",
    ),
    "health": ("rpc_commands", READ, "Check that the server answers `GET /health` (no token needed)."),
    "context": ("rpc_commands", READ, cli_summary("project_context")),
    "inspect": ("rpc_commands", READ, cli_summary("region_inspect")),
    "changes": (
        "rpc_commands",
        READ,
        "Ask for world changes since the last read (`region_changes`; the plugin always answers resync_required).",
    ),
    "status": ("plan_commands", READ, cli_summary("operation_status")),
    "part": ("library_commands", READ, "Named parts: the exact blocks an applied operation wrote."),
    "material": ("library_commands", READ, "Search and describe the server's material catalog."),
    "asset": ("library_commands", READ, "The server's schematic library."),
    "camera": ("admin_commands", READ, "Saved cameras and screenshots through the spectator camera."),
    "prepare": ("plan_commands", WRITE, cli_summary("build_prepare")),
    "apply": ("plan_commands", WRITE, cli_summary("build_apply")),
    "cancel": ("plan_commands", WRITE, cli_summary("operation_cancel")),
    "undo": ("plan_commands", WRITE, cli_summary("operation_undo_prepare")),
    "export": (
        "export",
        WRITE,
        "Save a box of the live world as a schematic: in the server's library (`schematic_export`), or with "
        "-o FILE as a local file of any size.",
    ),
    "import-prepare": ("library_commands", WRITE, cli_summary("schematic_import_prepare")),
    "build": (
        "build",
        WORKFLOWS,
        "Build a recipe, a library schematic or a schematic file of any size: prepare, apply, wait, summarise.",
    ),
    "verify": (
        "verify",
        WORKFLOWS,
        "Compare the world with a schematic file placed as `mcb build` places it: "
        "missing, wrong-block, wrong-state and extra positions, with counts and the first positions.",
    ),
    "batch": (
        "batch",
        WORKFLOWS,
        # the command's help names every registered step kind; a test keeps this copy equal to it
        "Run the steps of a batch file in order, resumably: recipe, import, terrain_tile, schematic and undo steps.",
    ),
    "serve": ("serve", ADMIN, "Run the local reference server until Ctrl-C; the world and journal survive restarts."),
    "mcp": ("mcp", ADMIN, "Serve mcb to an MCP client over stdio (one JSON-RPC message per line)."),
    "config": (
        "config",
        ADMIN,
        "Client settings: server URL, scope, profiles and token files. Precedence: flag "
        "> MCB_* env > .mcb.toml (project, no secrets) > user profile > defaults.",
    ),
    "chat": ("admin_commands", ADMIN, "In-game /ai chat queue (admin token; normally the bridge does this)."),
    "recovery": ("admin_commands", ADMIN, "Review and abandon interrupted operations (admin token)."),
    "rpc": ("rpc_commands", ADMIN, "Call any RPC method with raw JSON params and print the raw result (always JSON)."),
    "help": ("help", ADMIN, "Show a help topic, or list the topics."),
}
