"""`mcb help TOPIC`: help topics that are not commands (exit codes, environment)."""

from __future__ import annotations

from typing import Annotated

import typer

from mcb.options import JsonOpt, terminal

TOPICS = {"exit-codes": "what each exit code means", "environment": "the environment variables mcb reads"}

ENVIRONMENT = [
    ("MCB_SERVER", "RPC server URL (overrides config files; --server overrides it)"),
    ("MCB_PROFILE", "profile name in the user config file"),
    ("MCB_TOKEN", "admin token (never pass a token as a flag)"),
    ("MCB_AGENT_TOKEN", "agent token"),
    ("MCB_PLAYER_ID", "owner player UUID added to scoped calls"),
    ("MCB_PROJECT_ID", "project id added to scoped calls"),
    ("MCB_MC_VERSION", "default Minecraft release for offline block validation"),
    ("NO_COLOR", "disable colour when set to a non-empty value"),
    ("GITHUB_ACTIONS", "when 'true', reports default to GitHub workflow annotations"),
]


def help_topic(
    ctx: typer.Context,
    topic: Annotated[
        str | None,
        typer.Argument(
            help="One of: exit-codes, environment (none: list them).",
            autocompletion=lambda incomplete: [t for t in TOPICS if t.startswith(incomplete)],
        ),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Show a help topic, or list the topics.

    Examples:

        mcb help

        mcb help exit-codes

        mcb help environment --json
    """
    from mcb.errors import EXIT_CODE_TABLE, UsageError

    term = terminal(ctx, json_)
    if topic is None:
        data = [{"topic": t, "about": about} for t, about in TOPICS.items()]
        term.emit(
            data,
            lambda: [
                term.line("help topics (mcb help TOPIC; commands: mcb --help):"),
                term.kv([(f"  {t}", about) for t, about in TOPICS.items()]),
            ],
        )
    elif topic == "exit-codes":
        data = [{"code": c, "name": n, "meaning": m} for c, n, m in EXIT_CODE_TABLE]
        term.emit(
            data,
            lambda: term.table(["code", "name", "meaning"], [(c, n, m) for c, n, m in EXIT_CODE_TABLE], prose=True),
        )
    elif topic == "environment":
        data = [{"name": n, "meaning": m} for n, m in ENVIRONMENT]
        term.emit(data, lambda: term.table(["variable", "meaning"], ENVIRONMENT, prose=True))
    else:
        raise UsageError(f"unknown help topic {topic!r}", hint="topics: " + ", ".join(TOPICS))


def register(app: typer.Typer) -> None:
    app.command("help")(help_topic)
