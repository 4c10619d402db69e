"""`mcb mcp`: serve every agent RPC method and every offline tool to one MCP client over stdio."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def mcp(
    ctx: typer.Context,
    read_only: Annotated[
        bool, typer.Option("--read-only", envvar="MCB_MCP_READ_ONLY", help="List only tools that change nothing.")
    ] = False,
    offline: Annotated[bool, typer.Option("--offline", help="List only the offline tools (no server needed).")] = False,
    root: Annotated[
        Path | None,
        typer.Option(
            "--root", metavar="DIR", help="Workspace root for file arguments (default: the working directory)."
        ),
    ] = None,
    allow_any_path: Annotated[
        bool, typer.Option("--allow-any-path", help="Accept file arguments outside the root.")
    ] = False,
    disable_extension: Annotated[
        list[str] | None,
        typer.Option("--disable-extension", metavar="NAME", help="Never import this mcb.tools extension (repeatable)."),
    ] = None,
    no_extensions: Annotated[bool, typer.Option("--no-extensions", help="Import no extensions at all.")] = False,
    max_result_kb: Annotated[
        int,
        typer.Option(
            "--max-result-kb", min=1, max=1024, metavar="KIB", help="Cap on a result's text, in KiB (1..1024)."
        ),
    ] = 64,
    log_level: Annotated[
        str,
        typer.Option(
            "--log-level",
            envvar="MCB_LOG_LEVEL",
            metavar="LEVEL",
            help="stderr log level: debug, info, warning, error.",
        ),
    ] = "warning",
    dump_manifest: Annotated[
        bool,
        typer.Option(
            "--dump-manifest", help="Print the tools, the refusal table and the extensions as JSON, then exit."
        ),
    ] = False,
) -> None:
    """Serve mcb to an MCP client over stdio (one JSON-RPC message per line).

    stdout carries the protocol only; diagnostics go to stderr. The server URL, profile and player/project ids
    come from the same settings as every other command; only the agent token (MCB_AGENT_TOKEN or the profile's
    agent_token_file) is used. An MCP client starts it as {"command": "mcb", "args": ["mcp"]}.

    Examples:

        mcb mcp

        mcb mcp --offline --root ./schematics

        mcb mcp --dump-manifest
    """
    import os
    import sys

    from mcb import __version__
    from mcb.mcp import server
    from mcb.mcp.context import client_factory
    from mcb.options import app_state

    server.configure_logging(log_level)
    disabled = list(disable_extension or [])
    disabled += [name.strip() for name in os.environ.get("MCB_MCP_DISABLE_EXTENSIONS", "").split(",") if name.strip()]

    def catalog():  # built on the first request that needs the tools, so initialize does not wait for it
        return server.build_catalog(disabled=disabled, no_extensions=no_extensions, version=__version__)

    options = server.make_options(
        read_only=read_only,
        offline=offline,
        root=root,
        allow_any_path=allow_any_path,
        max_result_kb=max_result_kb,
        version=__version__,
    )
    state = app_state(ctx)

    def settings():
        from mcb.config import load_settings

        return load_settings(server=state.server, profile=state.profile, timeout=state.timeout)

    if dump_manifest:
        import json

        from mcb.mcp.manifest import dump
        from mcb.mcp.session import Session

        session = Session(catalog, options, sys.stdout.buffer, client_factory(settings))
        sys.stdout.write(json.dumps(dump(session), indent=2, ensure_ascii=False) + "\n")
        session.close()
        return
    raise typer.Exit(server.run(catalog, options, client_factory(settings)))


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("mcp")(mcp)
