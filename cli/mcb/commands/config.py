"""`mcb config init|show|use|set`: the user config file with named profiles (tokens only as token *files*)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcb.commands.rpc_support import json_terminal
from mcb.errors import ExitCode, UsageError, exit_codes_epilog
from mcb.options import JsonOpt
from mcb.wording import shown

config_app = typer.Typer(
    help="Client settings: server URL, scope, profiles and token files. Precedence: flag > MCB_* env > "
    ".mcb.toml (project, no secrets) > user profile > defaults.",
    no_args_is_help=True,
)
EPILOG = exit_codes_epilog(ExitCode.OK, ExitCode.USAGE, ExitCode.CONFIG)


@config_app.command("show", epilog=EPILOG)
def show(ctx: typer.Context, json_: JsonOpt = False) -> None:
    """Show every effective setting and where it came from; tokens are only reported as set or unset.

    A setting that cannot be used (an unsafe or missing token file, a malformed URL, a broken config file) is
    shown as broken with the reason; the exit code stays 0, while commands that need it keep refusing it.
    --json prints {"settings": [{name, value, source, problem?}], "files", "problems": [{setting, source,
    problem, hint?}]}.

    Examples:

        mcb config show

        MCB_PROFILE=prod mcb config show --json
    """
    from mcb.commands.rpc_support import load_settings
    from mcb.config import user_config_path

    term = json_terminal(ctx, json_)
    settings = load_settings(ctx, tolerant=True)
    rows = settings.public_view()
    files = {"user": str(user_config_path()), **settings.files}
    data = {"settings": rows, "files": files, "problems": settings.problems}

    def human() -> None:
        term.table(
            ["setting", "value", "source"],
            [
                (r["name"], "BROKEN" if "problem" in r else "" if r["value"] is None else r["value"], r["source"])
                for r in rows
            ],
        )
        for kind, path in files.items():
            term.info(f"{kind} config: {path}")
        for problem in settings.problems:
            hint = f" ({problem['hint']})" if problem.get("hint") else ""
            term.warn(f"{problem['setting']}: {problem['problem']}{hint}")

    term.emit(data, human)


@config_app.command("init", epilog=EPILOG)
def init(
    ctx: typer.Context,
    profile: Annotated[str, typer.Option("--name", help="Profile name to create or update.")] = "default",
    server: Annotated[str | None, typer.Option("--server-url", help="Server URL for this profile.")] = None,
    player_id: Annotated[
        str | None, typer.Option("--player-id", help="Owner UUID, or console for local automation.")
    ] = None,
    project_id: Annotated[
        str | None, typer.Option("--project-id", help="Project id (server default: default).")
    ] = None,
    token_file: Annotated[
        Path | None, typer.Option("--token-file", help="File holding the admin token (mode 600).")
    ] = None,
    agent_token_file: Annotated[
        Path | None, typer.Option("--agent-token-file", help="File holding the agent token (mode 600).")
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Create (or update) a profile in the user config file and make it the active one.

    Tokens are never accepted as values: point at a token file (the token alone, or a JSON file such as
    `mcb serve`'s tokens.json) that only you can read.

    Examples:

        mcb config init --server-url http://127.0.0.1:8765 --player-id console

        mcb config init --name prod --server-url http://127.0.0.1:8765 \\
            --player-id 0f6e...-uuid --agent-token-file ~/.mcb-agent
    """
    from mcb.config import DEFAULT_PLAYER_ID, DEFAULT_SERVER
    from mcb.config_edit import set_profile_values

    term = json_terminal(ctx, json_)
    updates = {
        "server": server or DEFAULT_SERVER,
        "player_id": player_id or DEFAULT_PLAYER_ID,
        "project_id": project_id,
        "token_file": str(token_file) if token_file else None,
        "agent_token_file": str(agent_token_file) if agent_token_file else None,
    }
    path = set_profile_values(profile, {k: v for k, v in updates.items() if v is not None}, activate=True)
    term.emit(
        {"file": str(path), "profile": profile},
        lambda: term.line(f"profile {profile!r} written to {shown(path)} (active)"),
    )


@config_app.command("use", epilog=EPILOG)
def use(
    ctx: typer.Context,
    profile: Annotated[str, typer.Argument(help="Existing profile to make active.")],
    json_: JsonOpt = False,
) -> None:
    """Make a profile the active one (MCB_PROFILE and --profile still win).

    Examples:

        mcb config use prod
    """
    from mcb.config_edit import use_profile

    term = json_terminal(ctx, json_)
    path = use_profile(profile)
    term.emit({"file": str(path), "profile": profile}, lambda: term.line(f"active profile: {profile}"))


@config_app.command("set", epilog=EPILOG)
def set_value(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help="server, timeout, player_id, project_id, token_file or agent_token_file.")],
    value: Annotated[str, typer.Argument(help="New value (token keys take a file path, never a token).")],
    profile: Annotated[str | None, typer.Option("--name", help="Profile to edit (default: the active one).")] = None,
    json_: JsonOpt = False,
) -> None:
    """Set one key of a profile in the user config file.

    Examples:

        mcb config set server http://127.0.0.1:18765

        mcb config set agent_token_file ~/.config/mcb/agent.token --name prod
    """
    from mcb.config_edit import load_user_config, set_profile_values

    if key in {"token", "admin_token", "agent_token"}:
        raise UsageError(
            "tokens are never accepted as values",
            hint="use MCB_TOKEN / MCB_AGENT_TOKEN, or `mcb config set token_file PATH`",
        )
    term = json_terminal(ctx, json_)
    name = profile or load_user_config().get("profile") or "default"
    path = set_profile_values(name, {key: value})
    term.emit(
        {"file": str(path), "profile": name, "key": key},
        lambda: term.line(f"{key} set in profile {name!r} ({shown(path)})"),
    )


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")
