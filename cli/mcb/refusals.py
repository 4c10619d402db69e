"""The one table of server refusals: what each one means in words, the next step, and the exit code.

Both faces read it. A plugin error (code + message, protocol §9) or a failure of mcb's own client is looked up once
with :func:`explain`; the CLI shows ``words`` (else the server's message) and ``hint`` with the next step named as
a command (`mcb context`), and exits by ``kind``; `mcb mcp` sends the server's message, the same sentence as its
``remedy`` with the step named as a tool (project_context) and the machine fields (mcp-conventions §2.4, MCP-32).

A hint is a template (mcb.errors): ``{project_context}`` names a tool and ``{server}`` a setting, each face in its
own words; ``{pos}`` and ``{limit}`` are numbers read from the server's message (digits only, so no outside text
reaches a template, MCP-36), filled in here. Positions always read ``x,y,z``, never Java's
``BlockPos[x=.., y=.., z=..]``.

No Typer, Rich or MCP here; nothing of mcb but :mod:`mcb.errors` is imported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mcb.errors import fill

# Methods that change nothing in the world. A lost answer to one of them (but camera_capture) is asked again, and
# after a failure nothing needs checking. camera_capture moves the camera and holds a 45 s lock: never repeated.
READ_ONLY_METHODS = frozenset(
    {
        "project_context",
        "material_search",
        "material_describe",
        "region_inspect",
        "region_changes",
        "operation_status",
        "part_get",
        "camera_list",
        "camera_capture",
        "asset_list",
        "terrain_preview",
        "recovery_review",
    }
)
NEVER_REPEATED = frozenset({"camera_capture"})
# Writes that land in the same state when sent again with the same arguments (build_apply through its key).
IDEMPOTENT_WRITES = frozenset({"build_apply", "operation_cancel"})


def repeatable(method: str) -> bool:
    """May a lost answer to ``method`` be asked for again (the request changes nothing, MCP-55)?"""
    return method in READ_ONLY_METHODS and method not in NEVER_REPEATED


@dataclass(frozen=True)
class Remedy:
    """One refusal in words, the same for both faces; the machine fields are what mcb mcp adds to ``data``."""

    hint: str  # the next step; {tool} placeholders name a tool in the face's own words
    words: str | None = None  # what happened, when the server's message is not for people
    kind: str = "server"  # auth | conflict | server | network: the CLI's exit code
    code: str | None = None  # the code reported, when not the server's own (a folded invalid_request)
    reason: str | None = None  # a refined reason for scripts (the CLI's details.reason)
    next_call: str | None = None  # the tool to call next
    next_arguments: tuple[tuple[str, str], ...] = ()  # (its argument, from this call's argument)
    field: str | None = None  # the argument at fault
    retry_with: dict | None = None
    restart_with: str | None = None
    retry_after_ms: int | None = None
    no_remedy: str | None = None  # why no call can fix it
    transient: bool = False  # nothing happened: the client sends the same request again until its deadline (MCP-56)


@dataclass(frozen=True)
class _Row:
    code: str
    pattern: re.Pattern | None
    remedy: Remedy
    methods: frozenset[str] = field(default_factory=frozenset)  # empty: any method


_POS = r"BlockPos\[x=(?P<x>-?\d+), y=(?P<y>-?\d+), z=(?P<z>-?\d+)\]"
_BLOCKPOS = re.compile(r"BlockPos\[x=(-?\d+), y=(-?\d+), z=(-?\d+)\]")

CHANGING = (
    "find what edits that area (a player, a farm, another build), then run it again: it reads the world afresh and "
    "goes on from there"
)
RECOVERY = (
    "an operation a server restart interrupted waits for an administrator: {project_context} shows it, and "
    "`mcb recovery abandon OPERATION_ID` (admin) reviews it and keeps the world as it is; writes stay refused until "
    "then, and the build or batch that started it goes on after"
)
OWNER = (
    "make sure the project owner is online with minecraftbuilder.use and that MCB_PLAYER_ID is the owner's "
    "UUID (or `console` with local automation), and check the tokens (MCB_AGENT_TOKEN, MCB_TOKEN); "
    "`mcb config show` shows the values in effect"
)
OWNER_RESTART = (
    "make sure the project owner is online with minecraftbuilder.use, and that MCB_PLAYER_ID is the "
    "owner's UUID (or `console` with local automation); then restart mcb mcp"
)
CAPTURE_FAILED = Remedy(
    "the camera could not take the picture; treat the build as visually unverified",
    no_remedy="the camera worker failed: visually unverified",
)


def _row(code: str, pattern: str | None, remedy: Remedy, *methods: str) -> _Row:
    return _Row(code, re.compile(pattern) if pattern else None, remedy, frozenset(methods))


# Checked in order; the first row whose code, message pattern (matched at the start) and method fit wins, so the
# specific rows come before each code's general one.
ROWS: tuple[_Row, ...] = (
    # -- invalid_request: the plugin folds most engine conditions into it, told apart by the message (§1.4)
    _row(
        "invalid_request",
        "busy:",
        Remedy(
            "another operation is still being written; wait until it ends ({project_context} lists it), then send the "
            "same request again",
            kind="conflict",
            code="busy",
            reason="operation_active",
            retry_after_ms=100,
            transient=True,
        ),
    ),
    _row(
        "invalid_request",
        "recovery_required:",
        Remedy(
            RECOVERY,
            kind="conflict",
            code="recovery_required",
            reason="recovery_required",
            no_remedy="an administrator settles it outside MCP",
        ),
    ),
    _row(
        "invalid_request",
        "snapshot_budget_exceeded:",
        Remedy(
            "the plan's block-entity snapshots pass the server's 8 MiB limit; split the edit into smaller plans",
            code="budget_exceeded",
            no_remedy="the block-entity snapshots exceed the server's 8 MiB limit",
        ),
    ),
    _row(
        "invalid_request",
        "Plan expired",
        Remedy(
            "plans live 10 minutes; prepare the plan again",
            kind="conflict",
            reason="plan_expired",
            no_remedy="the plan expired; prepare it again",
        ),
    ),
    _row(
        "invalid_request",
        "Idempotency key belongs to another plan",
        Remedy(
            "an idempotency key belongs to one plan: use a new key for a different plan",
            kind="conflict",
            reason="idempotency_key_reused",
            field="idempotency_key",
        ),
    ),
    _row(
        "invalid_request",
        f"Undo conflict: known later operation at {_POS}",
        Remedy(
            "undo the later operations first, newest first ({project_context} lists them); an operation that was "
            "already undone needs no second undo",
            words="a later operation wrote at {pos}, so this operation cannot be undone before it",
            kind="conflict",
            reason="undo_conflict",
            next_call="project_context",
        ),
    ),
    _row(
        "invalid_request",
        f"Undo conflict: external change at {_POS}",
        Remedy(
            "undo restores only blocks nobody changed since; read the area ({region_inspect}) and prepare a new build "
            "for what should be there",
            words="the block at {pos} changed since this operation wrote it",
            kind="conflict",
            reason="undo_conflict",
            next_call="region_inspect",
        ),
    ),
    _row(
        "invalid_request",
        "Undo requires a terminal, durable, reconciled operation",
        Remedy(
            "an operation that is still running, was interrupted by a restart, or was abandoned by an administrator "
            "has no undo of its own; `mcb build FILE --undo` restores a build's positions from what mcb recorded",
            words="the plugin cannot undo this operation (it is still running, interrupted, or abandoned)",
            kind="conflict",
            reason="undo_not_possible",
            next_call="operation_status",
        ),
    ),
    _row(
        "invalid_request",
        "Recovery mask changed",
        Remedy(
            "review the operation again (`mcb recovery review OPERATION_ID`, admin) and use the new digest",
            kind="conflict",
            reason="recovery_mask_changed",
            no_remedy="admin recovery is not exposed over MCP",
        ),
    ),
    _row(
        "invalid_request",
        "Unknown operation",
        Remedy(
            "operation ids come from {build_apply}; {project_context} lists the recent ones",
            field="operation_id",
            next_call="project_context",
        ),
    ),
    _row(
        "invalid_request",
        "Unknown plan",
        Remedy(
            "plan ids come from the prepare step ({build_prepare}); plans live 10 minutes, then prepare again",
            field="plan_id",
            reason="unknown_plan",
        ),
    ),
    _row(
        "invalid_request",
        "Invalid idempotencyKey",
        Remedy("an idempotency key is text without control characters", field="idempotency_key"),
    ),
    _row("invalid_request", "Part name too long", Remedy("a part name has at most 64 characters", field="name")),
    _row(
        "invalid_request",
        "Asset name must contain",
        Remedy("an asset name has 1 to 64 printable characters", field="name"),
    ),
    _row(
        "invalid_request",
        "Invalid asset ID",
        Remedy(
            "use an asset id that {asset_list} lists",
            words="an asset id names a schematic in the server's library, not a path",
            field="asset_id",
            next_call="asset_list",
        ),
    ),
    _row(
        "invalid_request",
        "Asset not found",
        Remedy(
            "{asset_list} lists the asset ids the library holds",
            words="no schematic in the server's library has this asset id",
            field="asset_id",
            next_call="asset_list",
        ),
    ),
    _row("invalid_request", "Rotation must be", Remedy("rotation is 0, 90, 180 or 270", field="rotation")),
    _row(
        "invalid_request",
        "(Unknown camera field|Camera |Finite camera number)",
        Remedy(
            "check the pose: x, y, z, yaw -360..360, pitch -90..90, fov 30..110, width 320..1920, height 180..1080",
            field="pose",
        ),
    ),
    _row(
        "invalid_request",
        "Invalid inclusive region bounds",
        Remedy(
            "give the lower corner as min and the upper one as max (swap the values that are the wrong way round)",
            words="min is above max on at least one axis",
            field="min",
        ),
    ),
    _row(
        "invalid_request",
        "Tile index outside terrain",
        Remedy(
            "tiles are numbered from 0 to tile_count - 1; {terrain_preview} reports tile_count",
            words="this terrain has no tile with that index",
            reason="tile_outside_terrain",  # a run of every tile ends here when the count is unknown
            field="tile_index",
        ),
    ),
    _row(
        "invalid_request",
        "Recipe scan budget exceeded",
        Remedy(
            "split it into smaller recipes; {recipe_lint} shows what each shape costs",
            words="the recipe's shapes "
            "cost more cell visits than the server allows (16 × max_plan_blocks, at most 2,000,000)",
            field="recipe",
        ),
    ),
    _row(
        "invalid_request",
        "Brush scan window must contain at most (?P<limit>\\d+) cells",
        Remedy(
            "make the scan box (min, max) smaller: the brush radius plus the smoothing halo around the centre, with "
            "some air above the surface, is enough",
            words="the brush's scan box holds more than {limit} cells",
            field="brush",
        ),
    ),
    _row("invalid_request", None, Remedy("the server refused the request; its message says why")),
    # -- the plugin's own codes (§9)
    _row(
        "budget_exceeded",
        "Read at most (?P<limit>\\d+) blocks",
        Remedy(
            "inspect a smaller box (16 x 16 x 16 is 4096 blocks), or several",
            words="one read covers at most {limit} blocks",
        ),
    ),
    _row(
        "budget_exceeded",
        "Export at most (?P<limit>\\d+) blocks",
        Remedy(
            "export a smaller box, or the build in several boxes",
            words="one export holds at most {limit} blocks (the server's max_plan_blocks)",
        ),
    ),
    _row(
        "budget_exceeded",
        "At most 512 explicit dependencies",
        Remedy("keep at most 512 dependencies", field="dependencies"),
    ),
    _row(
        "budget_exceeded",
        None,
        Remedy(
            "the request is larger than the server allows; split it into smaller requests",
            no_remedy="the request exceeds a fixed server budget; split it into smaller calls",
        ),
    ),
    _row(
        "busy",
        "Part requires",
        Remedy(
            "the operation is not applied yet; wait until it is ({operation_status}), then define the part",
            kind="conflict",
            next_call="operation_status",
            next_arguments=(("operation_id", "operation_id"),),
        ),
    ),
    _row(
        "busy",
        "A capture is already in progress",
        Remedy(
            "a capture holds the camera for up to 45 s; poll it with its capture id first",
            kind="conflict",
            retry_after_ms=45_000,
        ),
    ),
    _row(
        "busy",
        None,
        Remedy(
            "the server is busy with a short journal step; send the same request again in a moment",
            kind="conflict",
            retry_after_ms=100,
            transient=True,
        ),
    ),
    _row(
        "not_found",
        None,
        Remedy(
            "the server no longer holds this terrain recipe (it keeps 32 until it restarts); preview it again "
            "({terrain_preview}), then prepare the tile",
            next_call="terrain_preview",
        ),
        "terrain_prepare",
    ),
    _row(
        "not_found",
        None,
        Remedy("no saved camera has this id; {camera_list} lists them", next_call="camera_list"),
        "camera_capture",
    ),
    _row(
        "not_found",
        None,
        Remedy(
            "the id is not known to the server; {project_context} lists the parts and operations that exist",
            next_call="project_context",
        ),
    ),
    _row(
        "permission_denied",
        "Part is protected",
        Remedy(
            "the plan touches a protected part; leave that part out",
            kind="auth",
            no_remedy="parts are protected in game with /ai protect; no call can lift it",
        ),
    ),
    _row(
        "permission_denied",
        "Invalid capability token",
        Remedy(
            "the server refused the token: set MCB_AGENT_TOKEN (MCB_TOKEN for admin commands) to the plugin's token "
            "from its config.yml",
            kind="auth",
            reason="invalid_token",
            restart_with="set MCB_AGENT_TOKEN to the plugin's agent-token (config.yml), then restart mcb mcp",
        ),
    ),
    _row(
        "permission_denied",
        "Unknown project scope",
        Remedy(
            "set MCB_PROJECT_ID to the plugin's project-id, or leave it unset",
            kind="auth",
            restart_with="set MCB_PROJECT_ID to the plugin's project-id (or leave it unset), then restart mcb mcp",
        ),
    ),
    _row(
        "permission_denied",
        "Unknown capture",
        Remedy("the capture id is not one this server issued; start a new capture", kind="auth", field="capture_id"),
    ),
    _row(
        "permission_denied",
        ".*administrator capability",
        Remedy(
            "this call needs the administrator token (MCB_TOKEN)",
            kind="auth",
            reason="admin_required",
            no_remedy="administrator methods are not exposed over MCP",
        ),
    ),
    _row("permission_denied", None, Remedy(OWNER, kind="auth", restart_with=OWNER_RESTART)),
    _row(
        "stale_snapshot",
        None,
        Remedy(
            "the world changed since the plan was made; read it again ({region_inspect}) and prepare again",
            kind="conflict",
            next_call="region_inspect",
        ),
    ),
    _row(
        "version_mismatch",
        None,
        Remedy(
            "the project or world changed; read the project again ({project_context}), then prepare again",
            kind="conflict",
            next_call="project_context",
        ),
    ),
    _row(
        "out_of_bounds",
        None,
        Remedy(
            "keep coordinates inside the project area ({project_context} shows its region)", next_call="project_context"
        ),
    ),
    _row(
        "capture_not_ready",
        None,
        Remedy(
            "the operation is not applied yet; poll it ({operation_status}) until it is, then capture again",
            next_call="operation_status",
            next_arguments=(("operation_id", "after_operation_id"),),
        ),
    ),
    _row(
        "invalid_cursor",
        None,
        Remedy("the cursor is not valid for this search; start again from the first page", retry_with={"cursor": ""}),
    ),
    _row(
        "stale_cursor",
        None,
        Remedy(
            "the material catalog changed; start the search again from the first page",
            kind="conflict",
            retry_with={"cursor": ""},
        ),
    ),
    _row(
        "invalid_material",
        None,
        Remedy(
            "use an exact material id such as minecraft:oak_planks ({material_search} finds it)",
            next_call="material_search",
        ),
    ),
    _row(
        "unsupported_block",
        None,
        Remedy("use a registered block state ({block_check} checks one offline)", next_call="block_check"),
    ),
    _row(
        "conflict",
        None,
        Remedy(
            "the part overlaps an existing part; {project_context} lists the parts",
            kind="conflict",
            next_call="project_context",
        ),
    ),
    _row(
        "recovery_required",
        None,
        Remedy(RECOVERY, kind="conflict", no_remedy="an administrator settles it outside MCP"),
    ),
    _row(
        "cancelled",
        None,
        Remedy(
            "writes are paused in game (/ai stop); the owner must run /ai resume",
            kind="conflict",
            no_remedy="writes are paused in game by /ai stop; only the owner can resume them",
        ),
    ),
    _row(
        "chunk_not_loaded",
        None,
        Remedy(
            "the target chunks are not loaded; a player must visit them in game",
            no_remedy="chunks are loaded only by players in game",
        ),
    ),
    _row(
        "protected_terrain",
        None,
        Remedy(
            "the tile holds a building or a block that is not terrain; pick another tile or area",
            no_remedy="terrain tiles never overwrite buildings",
        ),
    ),
    _row(
        "unsupported_entity",
        None,
        Remedy("the box holds entities; export a box without them", no_remedy="schematic export keeps blocks only"),
    ),
    _row(
        "unsupported_block_entity",
        None,
        Remedy(
            "the box holds block entities; export a box without them",
            no_remedy="schematic export cannot keep block-entity data",
        ),
    ),
    _row(
        "camera_unavailable",
        None,
        Remedy(
            "no spectator camera is configured or online; treat the build as visually unverified",
            no_remedy="the camera account is not configured or not online: visually unverified",
        ),
    ),
    _row(
        "invalid_material_query",
        None,
        Remedy(
            "shorten the query, use kind block, item or all and a limit of 1 to 32",
            no_remedy="the search arguments are out of range",
        ),
    ),
    _row(
        "unsupported_method",
        None,
        Remedy(
            "the server does not know this method; {project_context} shows what it offers",
            no_remedy="this plugin build does not implement the method",
        ),
    ),
    _row(
        "material_properties_unavailable",
        None,
        Remedy(
            "the server cannot describe this material's properties",
            no_remedy="the plugin could not introspect the material",
        ),
    ),
    _row(
        "method_not_allowed",
        None,
        Remedy(
            "the server URL does not point at the plugin's RPC endpoint; check {server}",
            restart_with="point MCB_SERVER at the plugin (http://127.0.0.1:8765)",
        ),
    ),
    # -- mcb's own client (no plugin code)
    _row(
        "timeout",
        None,
        Remedy(
            "the server's main thread took too long; a read can be sent again, a write only after checking "
            "{project_context}",
            retry_after_ms=1000,
        ),
    ),
    _row("unavailable", None, Remedy("the Minecraft server did not answer; see `transport` and `plugin`")),
    _row(
        "invalid_response",
        None,
        Remedy(
            "is {server} pointing at the minecraft-builder plugin or `mcb serve`?",
            restart_with="point MCB_SERVER at the minecraft-builder plugin or `mcb serve`",
        ),
    ),
    # -- mcb's own long runs (a build, an undo, a batch, a terrain run): each goes on from its record when run again
    _row(
        "build_stopped",
        None,
        Remedy(
            "run it again: it reads the world afresh and goes on from where it stopped", kind="conflict", retry_with={}
        ),  # fmt: skip
    ),
    _row(
        "undo_stopped",
        None,
        Remedy("run it again to undo the rest", kind="conflict", retry_with={}),
    ),
    _row(
        "batch_stopped",
        None,
        Remedy("run it again: it goes on from this step", kind="conflict", retry_with={}),
    ),
    _row(
        "locked",
        None,
        Remedy(
            "wait for it to finish; running it again afterwards goes on safely from where it is",
            kind="conflict",
            retry_after_ms=5000,
        ),  # fmt: skip
    ),
    _row(
        "build_conflict",
        None,
        Remedy(CHANGING, kind="conflict", retry_with={}),
    ),
    _row(
        "undo_conflict",
        None,
        Remedy(CHANGING, kind="conflict", retry_with={}),
    ),
    _row(
        "request_too_large",
        None,
        Remedy(
            "the server accepts requests of at most 1 MiB; split the work into smaller recipes or plans",
            no_remedy="the plugin accepts requests of at most 1 MiB",
        ),
    ),
    _row(
        "response_too_large",
        None,
        Remedy(
            "the server's answer was not read; ask for less",
            no_remedy="the answer exceeds the bridge's response limit (2 MiB, 12 MiB for camera_capture)",
        ),
    ),
    _row(
        "invalid_image",
        None,
        Remedy("the server sent an image that cannot be decoded", no_remedy="the plugin's image data is broken"),
    ),
    _row(
        "no_token",
        None,
        Remedy(
            "set MCB_AGENT_TOKEN (or a 0600 token file) and restart mcb mcp",
            kind="auth",
            restart_with="set MCB_AGENT_TOKEN",
        ),
    ),
    _row(
        "config",
        None,
        Remedy(
            "the mcb configuration is broken; `mcb config show` names the problem",
            restart_with="fix the configuration shown by `mcb config show`",
        ),
    ),
    _row("capture_failed", None, CAPTURE_FAILED),
)

# Codes a camera worker reports inside a finished capture (`status: "error"`); each is a failed capture.
CAMERA_WORKER_CODES = (
    "capture_timeout",
    "disconnected",
    "spectator_required",
    "view_obstructed",
    "camera_moved",
    "spectating_entity",
    "view_changed",
    "framebuffer_size",
    "encoding_unavailable",
    "readback_failed",
    "encoding_failed",
    "image_too_large",
    "client_stopping",
)
_GENERAL = Remedy("the server refused the request; its message says why", no_remedy="see the message")


@dataclass(frozen=True)
class Explained:
    """A refusal as the table reads it: the code to report, the remedy, and the numbers read from the message."""

    code: str
    remedy: Remedy
    values: dict[str, str]  # {pos}, {limit}, ... (digits only)

    @property
    def words(self) -> str | None:
        return fill(self.remedy.words, self.values) if self.remedy.words else None

    @property
    def hint(self) -> str:
        """The next step, a template: its tools and settings are named by the face that shows it."""
        return fill(self.remedy.hint, self.values)


def explain(method: str, code: str, message: str) -> Explained:
    """The table's row for the server's answer ``code``/``message`` to ``method``."""
    for row in ROWS:
        if row.code != code or (row.methods and method not in row.methods):
            continue
        found = row.pattern.match(message) if row.pattern else None
        if row.pattern is not None and found is None:
            continue
        values = {key: value for key, value in (found.groupdict() if found else {}).items() if value is not None}
        if {"x", "y", "z"} <= set(values):
            values["pos"] = f"{values['x']},{values['y']},{values['z']}"
        return Explained(row.remedy.code or code, row.remedy, values)
    if code in CAMERA_WORKER_CODES:
        return Explained(code, CAPTURE_FAILED, {})
    return Explained(code, _GENERAL, {})


# Why a `failed` operation failed, read from its status message (protocol §5.3), where mcb acts on it: a plan that
# expired before it applied, and an operation an administrator abandoned after a restart, wrote nothing it asked for.
_FAILED = (("Plan expired", "plan_expired"), ("Administrator abandoned", "abandoned"))


def failure_reason(status: str, message: str) -> str | None:
    """``plan_expired`` or ``abandoned`` for an operation that ended ``failed`` with such a message, else None."""
    if status != "failed":
        return None
    return next((reason for prefix, reason in _FAILED if message.startswith(prefix)), None)


# Why the plugin refuses an operation's undo where mcb can restore from its own record instead (mcb.batch.undo).
_UNDO_REFUSALS = {
    "undo_conflict": "a block it wrote was changed later (a player, or another operation)",
    "undo_not_possible": "a server restart interrupted it, or it was abandoned",
}


def undo_refused(error) -> str | None:
    """Why ``operation_undo_prepare`` refused, in words, when a restore from mcb's record can do instead; None for
    any other failure."""
    details = getattr(error, "details", None) or {}
    if details.get("method") != "operation_undo_prepare":
        return None
    return _UNDO_REFUSALS.get(details.get("reason"))


def plain_positions(text: str) -> str:
    """``text`` with Java's ``BlockPos[x=1, y=64, z=-5]`` written as ``1,64,-5``."""
    return _BLOCKPOS.sub(lambda m: f"{m[1]},{m[2]},{m[3]}", text)


def position_in(text: str) -> dict[str, int] | None:
    """The first ``BlockPos[...]`` of ``text`` as ``{x, y, z}``."""
    found = _BLOCKPOS.search(text)
    return {"x": int(found[1]), "y": int(found[2]), "z": int(found[3])} if found else None


def local_hint(method: str, code: str, message: str) -> str | None:
    """The hint for a refusal mcb found itself, in the server's words (a brush checked before sending)."""
    known = explain(method, code, message)
    return None if known.remedy.hint == _GENERAL.hint else known.hint


def code_hint(code: str) -> str:
    """The hint for one of mcb's own codes (invalid_response, request_too_large, ...)."""
    return explain("", code, "").hint


# -- a request that may or may not have reached the server: where a mutation that may have happened shows up --
_LOOK_FOR = {
    "schematic_export": ("asset_list", "look for the new asset in the library ({asset_list})"),
    "part_define": ("project_context", "look for the part under `parts` ({project_context}) before defining it again"),
}
_DEFAULT_LOOK = (
    "project_context",
    "look for the plan or operation among the recent ones ({project_context}) before sending it again",
)


def unknown_outcome(method: str, arguments: dict | None = None) -> Remedy:
    """What to do when a request to ``method`` may have reached the server and no answer came (MCP-54).

    A read changes nothing; a write is never repeated blindly, except the same call with the same key."""
    if method in READ_ONLY_METHODS and method not in NEVER_REPEATED or method == "health":
        return Remedy(
            "no complete answer; a read changes nothing, so sending it again is safe (`mcb health` checks the server)",
            kind="network",
            retry_after_ms=1000,
        )
    if method == "camera_capture":
        return Remedy(
            "the outcome is unknown; a started capture holds the camera for up to 45 s",
            kind="network",
            retry_after_ms=45_000,
        )
    if method in IDEMPOTENT_WRITES:
        why = (
            "cancelling the same operation again ends it the same way"
            if method == "operation_cancel"
            else "the same idempotency key returns the existing operation instead of applying twice"
        )
        return Remedy(
            f"whether it happened is unknown: send exactly the same call again ({why}), or look for "
            "the operation among the recent ones ({project_context})",
            kind="network",
            retry_with=dict(arguments) if arguments is not None else None,
            next_call="project_context",
        )
    tool, look = _LOOK_FOR.get(method, _DEFAULT_LOOK)
    return Remedy(
        f"the request may have reached the server and is not safe to repeat blindly; {look}",
        kind="network",
        next_call=tool,
    )


# No connection could be opened (refused, or the connect timed out): nothing was sent, so nothing happened.
NOT_REACHED = Remedy(
    "nothing was sent: is the server running? check {server} (`mcb config show`)",
    kind="network",
    restart_with="start the Minecraft server (or `mcb serve`) at MCB_SERVER, then call again",
)


def all_codes() -> dict[str, Remedy]:
    """Each code's general remedy (for mcb mcp's published refusal table, MCP-33)."""
    table: dict[str, Remedy] = {}
    for row in ROWS:
        code = row.remedy.code or row.code
        if row.pattern is None and not row.methods:
            table[code] = row.remedy
        else:
            table.setdefault(code, row.remedy)
    for code in CAMERA_WORKER_CODES:
        table[code] = CAPTURE_FAILED
    return table
