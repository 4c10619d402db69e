"""`mcb serve`: run the local reference server (the plugin's HTTP JSON RPC against a local world)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from mcb.options import JsonOpt, terminal


def serve(
    ctx: typer.Context,
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            metavar="DIR",
            help="Data directory (world, journal, "
            "tokens). Default: mcb/server in the user data dir "
            "($XDG_DATA_HOME, else ~/.local/share).",
        ),
    ] = None,
    port: Annotated[
        int, typer.Option("--port", metavar="PORT", help="TCP port; 0 picks a free one.", min=0, max=65535)
    ] = 8765,
    host: Annotated[
        str, typer.Option("--host", metavar="HOST", help="Listen address (loopback unless --allow-remote).")
    ] = "127.0.0.1",
    allow_remote: Annotated[
        bool, typer.Option("--allow-remote", help="Permit a non-loopback --host (no TLS!).")
    ] = False,
    tick_ms: Annotated[
        int,
        typer.Option(
            "--tick-ms",
            metavar="MS",
            help="The tick: world work and engine steps wait for it (50 = Paper's 20 TPS); 0 = instant.",
            min=0,
        ),
    ] = 50,
    test_hooks: Annotated[
        bool,
        typer.Option(
            "--test-hooks",
            help="Enable admin-only test_* methods (player edits, owner offline, /ai stop, chat prompts).",
        ),
    ] = False,
    owner: Annotated[
        str | None, typer.Option("--owner", metavar="UUID", help="Owner UUID (saved; default: generated once).")
    ] = None,
    project: Annotated[
        str | None, typer.Option("--project", metavar="ID", help="Project id (saved; default 'default').")
    ] = None,
    # Two flags, one name each: as an on/off pair they need a second name column, which cuts help at 80 columns.
    automation_on: Annotated[
        bool, typer.Option("--local-automation", help="Accept player_id 'console' (the default; saved).")
    ] = False,
    automation_off: Annotated[
        bool, typer.Option("--no-local-automation", help="Refuse player_id 'console' (saved).")
    ] = False,
    region: Annotated[
        str | None,
        typer.Option(
            "--region",
            metavar="BOX",
            help="Project area x1,y1,z1,x2,y2,z2, inclusive (saved; default -64,0,-64 to 64,128,64).",
        ),
    ] = None,
    loaded_chunk_radius: Annotated[
        int | None,
        typer.Option(
            "--loaded-chunk-radius",
            metavar="N",
            min=0,
            help="Only chunks within this Chebyshev radius of chunk 0,0 are loaded.",
        ),
    ] = None,
    world_border: Annotated[
        int | None, typer.Option("--world-border", metavar="N", min=1, help="World-border radius in blocks.")
    ] = None,
    max_plan_blocks: Annotated[
        int | None,
        typer.Option(
            "--max-plan-blocks",
            metavar="N",
            min=1,
            max=4096,
            help="Most blocks one plan may change (saved; default 4096).",
        ),
    ] = None,
    data_version: Annotated[
        int | None, typer.Option("--data-version", metavar="N", help="Reported DataVersion (default 4903).")
    ] = None,
    ground: Annotated[
        str | None,
        typer.Option(
            "--ground",
            metavar="KIND",
            help="Natural ground for unedited blocks: hills (terrain height field with a flat build site at "
            "y=63 around 0,0) or flat (grass at y=63). New worlds default to hills; saved.",
        ),
    ] = None,
    camera_player: Annotated[
        str | None,
        typer.Option(
            "--camera-player",
            metavar="UUID",
            help="Spectator camera account (saved; 'none' clears it). Its captures "
            "are drawn from the local world by a stand-in renderer.",
        ),
    ] = None,
    head_timeout: Annotated[
        float,
        typer.Option(
            "--head-timeout", metavar="S", min=0.01, help="Seconds a client has to send a request's head (default 10)."
        ),
    ] = 10.0,
    body_timeout: Annotated[
        float,
        typer.Option(
            "--body-timeout", metavar="S", min=0.01, help="Seconds for the body, and to take the answer (default 10)."
        ),
    ] = 10.0,
    ready_file: Annotated[Path | None, typer.Option("--ready-file", hidden=True)] = None,
    json_: JsonOpt = False,
) -> None:
    """Run the local reference server until Ctrl-C; the world and journal survive restarts.

    Listens on 127.0.0.1 only unless --allow-remote. Tokens (admin, agent) are generated on first start and kept in
    DATA/tokens.json (mode 0600); they are never printed. With --json, one line {url, data_dir, token_file} is
    printed to stdout once the server is ready.

    Exits 7 when DATA is in use by another mcb serve (one server per data directory; the lock goes with its
    process, kill -9 included), 6 when the port cannot be opened, 3 when DATA cannot be used.

    Examples:

        mcb serve

        mcb serve --data ./world --port 0 --tick-ms 0 --test-hooks

        mcb serve --owner 0f6c3a6e-8a39-4a5b-9d4e-2f3f0d0c0a01 \\
            --no-local-automation

        mcb serve --camera-player 7d2f9a64-3c1e-4b8a-9f5d-1a2b3c4d5e6f
    """
    from mcb.errors import ConfigError, ConflictError, NetworkError, UsageError
    from mcb.server.datalock import DataDirInUse
    from mcb.server.runner import ServeListenError, ServeRequest, ServeSetupError, run_until_stopped

    term = terminal(ctx, json_)
    if automation_on and automation_off:
        raise UsageError("--local-automation and --no-local-automation contradict each other")
    local_automation = True if automation_on else False if automation_off else None
    request = ServeRequest(
        data_dir=data,
        host=host,
        port=port,
        allow_remote=allow_remote,
        tick_ms=tick_ms,
        test_hooks=test_hooks,
        owner=owner,
        project=project,
        local_automation=local_automation,
        region=region,
        loaded_chunk_radius=loaded_chunk_radius,
        world_border=world_border,
        max_plan_blocks=max_plan_blocks,
        data_version=data_version,
        ground=ground,
        camera_player=camera_player,
        ready_file=ready_file,
        verbose=term.verbosity > 0,
        head_timeout=head_timeout,
        body_timeout=body_timeout,
    )

    def on_ready(info: dict) -> None:
        if info.get("remote_warning"):
            term.warn(info["remote_warning"])
        term.info(f"mcb serve listening on {info['url']} (tick {tick_ms} ms{', test hooks on' if test_hooks else ''})")
        term.info(f"data: {info['data_dir']}")
        term.info(f"tokens: {info['token_file']} (admin_token, agent_token; mode 0600)")
        stuck = info.get("recovery_required")
        if stuck:
            from mcb.wording import plural

            term.warn(
                f"{plural(len(stuck), 'interrupted operation')} must be reviewed before new builds run: "
                + "; ".join(f"`mcb recovery review {op}`" for op in stuck[:3])
                + (f" (and {len(stuck) - 3:,} more: `mcb context`)" if len(stuck) > 3 else "")
                + " (admin)"
            )
        term.info("press Ctrl-C to stop")
        if term.json_mode:
            # One compact line (not pretty JSON): a script reads it while the server keeps running.
            import json

            term.line(json.dumps({k: info[k] for k in ("url", "data_dir", "token_file")}, ensure_ascii=False))
            sys.stdout.flush()

    try:
        run_until_stopped(request, on_ready)
    except DataDirInUse as error:
        raise ConflictError(
            str(error), code="data_dir_in_use", hint="stop that server first, or start this one with another --data"
        ) from None
    except ServeSetupError as error:
        raise ConfigError(
            str(error), hint=error.hint or "check the directory permissions, or start with another --data"
        ) from None
    except ServeListenError as error:
        raise NetworkError(str(error), hint=error.hint or "--port 0 picks a free port") from None
    except ValueError as error:
        raise UsageError(str(error)) from None
    term.info("stopped; world and journal saved")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("serve")(serve)
