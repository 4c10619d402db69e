"""Camera, chat (admin) and recovery (admin) commands."""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from mcb.commands.rpc_support import (
    EXIT_CODES_HELP,
    check_output,
    id_table,
    json_terminal,
    open_client,
    show_status,
    write_text_atomic,
)
from mcb.errors import InputError, NetworkError, ServerError, UsageError
from mcb.options import JsonOpt, summarised
from mcb.wording import dimensions, plural, shown

camera_app = typer.Typer(help="Saved cameras and screenshots through the spectator camera.", no_args_is_help=True)
chat_app = typer.Typer(
    help="In-game /ai chat queue (admin token; normally the bridge does this).", no_args_is_help=True
)
recovery_app = typer.Typer(help="Review and abandon interrupted operations (admin token).", no_args_is_help=True)

CHAT_HAZARD = (
    "chat polling changes server state: once anything has polled, the plugin cancels every running operation "
    "whenever no poll arrives for 15 s (unless local automation is on), and polling with a new client id while "
    "the bridge holds messages pauses writes and cancels operations. Do not poll while the real bridge runs."
)


@camera_app.command("list", epilog=EXIT_CODES_HELP)
@summarised("camera_list")
def camera_list(ctx: typer.Context, json_: JsonOpt = False) -> None:
    """Examples:

    mcb camera list --json
    """
    term = json_terminal(ctx, json_)
    with open_client(ctx, term) as client:
        result = client.camera_list()

    def human() -> None:
        term.line(f"camera account configured: {'yes' if result.configured else 'no'}")
        id_table(
            term,
            ["camera", "x", "y", "z", "yaw", "pitch"],
            [(c.camera_id, c.x, c.y, c.z, c.yaw, c.pitch) for c in result.cameras],
        )

    term.emit(result.wire(), human)


def parse_pose(text: str, fov: int | None, width: int | None, height: int | None) -> dict:
    parts = text.split(",")
    try:
        if len(parts) != 5:
            raise ValueError
        x, y, z, yaw, pitch = numbers = [float(p) for p in parts]
        if not all(math.isfinite(n) for n in numbers):  # nan, inf, 1e999: not JSON, the request would be invalid
            raise ValueError
    except ValueError:
        raise UsageError(f"--pose expects x,y,z,yaw,pitch finite numbers, got {text!r}") from None
    from mcb.client.models import POSE_LIMITS

    pose: dict = {"x": x, "y": y, "z": z, "yaw": yaw, "pitch": pitch}
    for key, value in (("fov", fov), ("width", width), ("height", height)):
        if value is not None:
            pose[key] = value
    for key, (low, high) in POSE_LIMITS.items():
        if key in pose and not low <= pose[key] <= high:
            option = f"--{key}" if key in ("fov", "width", "height") else f"--pose {key}"
            raise UsageError(
                f"{option} {pose[key]:g} is outside {low}..{high}",
                hint="the camera's limits: " + ", ".join(f"{name} {a}..{b}" for name, (a, b) in POSE_LIMITS.items()),
            )
    return pose


@camera_app.command("capture", epilog=EXIT_CODES_HELP)
@summarised("camera_capture")
def camera_capture(
    ctx: typer.Context,
    output: Annotated[Path, typer.Option("--output", "-o", help="Where to write the PNG.")],
    camera: Annotated[str | None, typer.Option("--camera", help="Saved camera id.")] = None,
    pose: Annotated[str | None, typer.Option("--pose", help="x,y,z,yaw,pitch (wins over --camera).")] = None,
    after: Annotated[str | None, typer.Option("--after", help="Only once this operation is applied.")] = None,
    fov: Annotated[int | None, typer.Option("--fov", help="Field of view 30..110.")] = None,
    width: Annotated[int | None, typer.Option("--width", help="Image width 320..1920.")] = None,
    height: Annotated[int | None, typer.Option("--height", help="Image height 180..1080.")] = None,
    timeout: Annotated[
        float, typer.Option("--wait-timeout", metavar="SECONDS", help="Seconds to wait for the picture.", min=1)
    ] = 90.0,
    json_: JsonOpt = False,
) -> None:
    """Polls until the capture is done and writes the PNG. --json prints the final capture result with `imageBase64` replaced by `"image": "<output path>"`.

    Examples:

        mcb camera capture --camera front -o front.png

        mcb camera capture --pose 0,80,-20,0,30 --after 0b6d...-uuid -o after.png
    """
    if not camera and not pose:
        raise UsageError("give --camera ID or --pose x,y,z,yaw,pitch")
    term = json_terminal(ctx, json_)
    pose_body = parse_pose(pose, fov, width, height) if pose else None
    check_output(output)
    deadline = time.monotonic() + timeout
    with open_client(ctx, term) as client:
        result = client.camera_capture(camera_id=camera, pose=pose_body, after_operation_id=after)
        with term.progress("capturing", total=None):
            while result.status == "pending":
                if not result.captureId:
                    raise ServerError("camera returned `pending` without a captureId", code="invalid_response")
                if time.monotonic() > deadline:
                    raise NetworkError(
                        f"capture {result.captureId} still pending after {timeout:g} s", code="wait_timeout"
                    )
                time.sleep(0.5)
                result = client.camera_capture(capture_id=result.captureId)
    if result.status != "completed":
        from mcb.refusals import code_hint

        raise ServerError(
            f"capture {result.captureId} failed: {result.error}: {result.message}",
            code=result.error or "capture_failed",
            hint=code_hint(result.error or "capture_failed"),
        )
    from mcb.images import png_from_base64

    image = png_from_base64("camera_capture", result.imageBase64, result.mimeType)
    write_text_atomic(output, image)
    data = {k: v for k, v in result.wire().items() if k != "imageBase64"}
    data["image"] = str(output)
    term.emit(
        data,
        lambda: term.line(
            f"wrote {shown(output)} ({dimensions(result.width, result.height)}, {plural(len(image), 'byte')})"
        ),
    )


@chat_app.command("poll", epilog=EXIT_CODES_HELP)
def chat_poll(
    ctx: typer.Context,
    client_id: Annotated[str, typer.Option("--client-id", help="Stable id of this poller.")],
    json_: JsonOpt = False,
) -> None:
    """Lease up to 8 queued /ai chat messages (`chat_poll`, admin token). Read the warning first.

    Warning: polling starts the plugin's 15-second chat-silence rule, which cancels running operations if polling
    stops (unless local automation is on); a new --client-id while the bridge holds messages pauses writes.

    Examples:

        mcb chat poll --client-id my-bot --json
    """
    term = json_terminal(ctx, json_)
    term.warn(CHAT_HAZARD)
    with open_client(ctx, term) as client:
        result = client.chat_poll(client_id)
    term.emit(
        result.wire(),
        lambda: id_table(
            term, ["id", "player", "type", "text"], [(m.id, m.playerId, m.type, m.text) for m in result.messages]
        ),
    )


@chat_app.command("reply", epilog=EXIT_CODES_HELP)
def chat_reply(
    ctx: typer.Context,
    message_id: Annotated[str, typer.Argument(metavar="ID", help="Message id from `mcb chat poll`.")],
    player: Annotated[str, typer.Option("--player", help="playerId of the message's sender.")],
    text: Annotated[str | None, typer.Option("--text", help="Reply shown in game (first 1600 characters).")] = None,
    done: Annotated[bool, typer.Option("--done", help="Mark the message finished (removes its lease).")] = False,
    json_: JsonOpt = False,
) -> None:
    """Answer a chat message in game (`chat_reply`, admin token).

    Examples:

        mcb chat reply 4e1f...-uuid --player 9a7b...-uuid --text "Tower built" --done
    """
    term = json_terminal(ctx, json_)
    term.warn(CHAT_HAZARD)
    with open_client(ctx, term) as client:
        result = client.chat_reply(message_id, player, text=text, done=done)
    term.emit(result.wire(), lambda: term.line("delivered" if result.delivered else "not delivered (player offline)"))


@recovery_app.command("review", epilog=EXIT_CODES_HELP)
def recovery_review(
    ctx: typer.Context,
    operation_id: Annotated[str, typer.Argument(help="An operation in recovery_required.")],
    json_: JsonOpt = False,
) -> None:
    """Compare an interrupted operation's blocks with their before/after values (`recovery_review`, admin).

    Prints `currentDigest`; pass it to `mcb recovery abandon --digest` to confirm you reviewed this exact state.

    Examples:

        mcb recovery review 0b6d...-uuid
    """
    term = json_terminal(ctx, json_)
    with open_client(ctx, term) as client:
        result = client.recovery_review(operation_id)
    term.emit(
        result.wire(),
        lambda: term.kv(
            [
                ("operation", result.operationId),
                ("plan", result.planId),
                ("positions", result.positions),
                ("match before", result.matchesBefore),
                ("match after", result.matchesAfter),
                ("foreign states", result.foreignStates),
                ("digest", result.currentDigest),
            ]
        ),
    )
    term.info(recovery_next_step(result))


def recovery_next_step(review) -> str:
    """What the review found, in words, and the one way on: abandoning keeps the world as it is now."""
    op = review.operationId
    if review.positions == 0:
        found = "the interrupted operation left no block it may have written"
    else:
        parts = [
            f"{review.matchesAfter:,} as the operation wrote them",
            f"{review.matchesBefore:,} as before it",
            f"{review.foreignStates:,} changed by someone else",
        ]
        found = f"of {plural(review.positions, 'position')} it may have written: " + ", ".join(parts)
    return (
        f"{found}\n"
        f"next: `mcb recovery abandon {op}` (admin) keeps the world as it is now and ends the operation as "
        "failed (the plugin can no longer undo it); the command that started it then goes on, and new builds run "
        "again once no operation needs recovery"
    )


@recovery_app.command("abandon", epilog=EXIT_CODES_HELP)
def recovery_abandon(
    ctx: typer.Context,
    operation_id: Annotated[str, typer.Argument(help="An operation in recovery_required.")],
    digest: Annotated[
        str | None,
        typer.Option("--digest", help="currentDigest from `mcb recovery review` (default: review it now)."),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask before abandoning.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Give up on an interrupted operation without touching the world (`recovery_review` +
    `recovery_abandon`, admin).

    Without --digest it reviews the operation first and shows what it found (positions as the operation wrote
    them, as before it, changed by someone else), asks on a terminal, then abandons exactly what it reviewed.
    The operation becomes `failed` and the plugin can no longer undo it; `mcb build FILE --undo` still
    restores a build's positions from what mcb recorded. The same `mcb build` or `mcb batch` command that
    started it then goes on. --json prints the operation's status.

    Examples:

        mcb recovery abandon 0b6d...-uuid

        mcb recovery abandon 0b6d...-uuid --yes --json

        mcb recovery abandon 0b6d...-uuid --digest 7d0c...e6
    """
    if digest is not None and (len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest)):
        raise UsageError("--digest must be the 64-character lowercase hex currentDigest from `mcb recovery review`")
    term = json_terminal(ctx, json_)
    with open_client(ctx, term) as client:
        if digest is None:
            review = client.recovery_review(operation_id)
            term.info(recovery_next_step(review).splitlines()[0])
            if not yes and sys.stdin.isatty() and sys.stderr.isatty():
                if not typer.confirm(f"Abandon operation {operation_id} (the world stays as it is)?", err=True):
                    raise InputError("nothing was abandoned (not confirmed)", code="not_confirmed",
                                     hint="add --yes to abandon without asking")  # fmt: skip
            digest = review.currentDigest
        result = client.recovery_abandon(operation_id, digest)
    term.emit(result.wire(), lambda: show_status(term, result))


def register(app: typer.Typer) -> None:
    app.add_typer(camera_app, name="camera")
    app.add_typer(chat_app, name="chat")
    app.add_typer(recovery_app, name="recovery")
