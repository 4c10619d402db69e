"""`mcb terrain brush`: prepare (and apply) a terrain brush stroke, with its before / after image."""

from __future__ import annotations

from typing import Annotated

import typer

from mcb.options import WAIT_TIMEOUT, JsonOpt, PngOutputOpt, WaitTimeoutOpt, summarised, terminal
from mcb.wording import shown


@summarised("terrain_brush_prepare")
def brush(
    ctx: typer.Context,
    brush_file: Annotated[str, typer.Argument(metavar="BRUSH.json", help="Brush JSON file ('-' = stdin).")],
    output: PngOutputOpt = None,
    apply: Annotated[bool, typer.Option("--apply", help="Apply the prepared plan and wait.")] = False,
    wait_timeout: WaitTimeoutOpt = WAIT_TIMEOUT,
    json_: JsonOpt = False,
) -> None:
    """Prints changed columns, raised/lowered volume and the plan; -o writes the BEFORE / AFTER / HEIGHT CHANGE
    image. Nothing changes in the world until --apply (or `mcb apply` with the printed plan).

    Examples:

        mcb terrain brush recipes/terrain/raise-brush.json -o stroke.png

        mcb terrain brush stroke.json --apply --json
    """
    from mcb.commands.rpc_support import check_output, open_client, write_text_atomic
    from mcb.commands.stdio import output_target
    from mcb.errors import InputError
    from mcb.terrain.brush import parse_brush
    from mcb.terrain.jsontext import loads_keeping_numbers, to_plain
    from mcb.terrain.offline import read_json_text

    term = terminal(ctx, json_)
    output = output_target(term, output)
    try:
        obj = loads_keeping_numbers(read_json_text(brush_file, "brush"))
    except ValueError as error:
        raise InputError(f"brush {brush_file} is not valid JSON: {error}") from None
    parse_brush(obj)  # the server's own message for a bad brush, without a round trip
    check_output(output, brush_file)
    with open_client(ctx, term) as client:
        result = client.call("terrain_brush_prepare", {"brush": to_plain(obj)})
        png = _brush_image(result)
        if output is not None:
            write_text_atomic(output, png)
        result["image"] = str(output) if output is not None else None
        from mcb.client.models import TerrainPlan

        plan = TerrainPlan.model_validate(result).plan()
        if not (apply and plan is not None):
            term.emit(result, lambda: _show_brush(term, result))
            return
        _show_brush(term, result, stream=term.info)
        from mcb.commands.build import write_one_plan

        prepared = [plan]  # an expired plan is prepared again from the same stroke
        stroke = to_plain(obj)

        def prepare():
            if prepared:
                return prepared.pop()
            return TerrainPlan.model_validate(client.call("terrain_brush_prepare", {"brush": stroke})).plan()

        write_one_plan(term, client, {"brush": stroke}, prepare, timeout=wait_timeout,
                       command=f"mcb terrain brush {brush_file} --apply", status_only=True)  # fmt: skip


_BRUSH_KEYS = (
    "plan_state",
    "changed_columns",
    "raised_volume",
    "lowered_volume",
    "height_min",
    "height_max",
    "dependency_blocks",
)


def _brush_image(result) -> bytes:
    """Check the fields the report prints and the plan, then pop and decode the image; another shape is the
    server's fault (exit 5), not a KeyError or a binascii traceback."""
    from pydantic import ValidationError

    from mcb.client.models import TerrainPlan
    from mcb.errors import ServerError

    wrong = ServerError(
        "terrain_brush_prepare: unexpected result from the server",
        code="invalid_response",
        hint="is the server a compatible plugin build?",
    )
    if not isinstance(result, dict) or not all(key in result for key in _BRUSH_KEYS):
        raise wrong
    try:
        TerrainPlan.model_validate(result)
    except ValidationError:
        raise wrong from None
    from mcb.images import png_from_base64

    return png_from_base64(
        "terrain_brush_prepare", result.pop("imageBase64", None), result.get("mimeType"), allow_empty=True
    )


def _show_brush(term, r: dict, stream=None) -> None:
    pairs = [
        ("plan state", r["plan_state"]),
        ("columns changed", r["changed_columns"]),
        ("raised / lowered", f"{r['raised_volume']:,} / {r['lowered_volume']:,} blocks"),
        ("surface", f"{r['height_min']} .. {r['height_max']}"),
        ("read dependencies", r["dependency_blocks"]),
    ]
    if r.get("plan_id"):
        pairs += [("plan id", r["plan_id"]), ("plan hash", r["plan_hash"]), ("changed blocks", r["changed_blocks"])]
    pairs.append(("image", shown(r.get("image") or "(not written; use -o FILE)")))
    if stream is None:
        term.kv(pairs)
    else:
        for key, value in pairs:
            stream(f"{key}: {value}")


def register(terrain_app: typer.Typer) -> None:
    """Attach `brush` to the `mcb terrain` group owned by mcb.commands.terrain."""
    terrain_app.command("brush")(brush)
