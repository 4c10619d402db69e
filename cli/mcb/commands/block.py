"""`mcb block check` and `mcb block describe`: offline block-state validation against the vanilla registry."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mcb.options import JsonOpt, McVersionOpt, summarised, terminal

block_app = typer.Typer(
    help="Validate and describe block states offline (vanilla registry, default Minecraft 26.2).",
    no_args_is_help=True,
)


@block_app.command("check")
@summarised("block_check")
def check(
    ctx: typer.Context,
    states: Annotated[
        list[str], typer.Argument(metavar="STATE", help="Block states to check; '-' reads one per line from stdin.")
    ],
    mc_version: McVersionOpt = None,
    recipe: Annotated[
        bool,
        typer.Option(
            "--recipe", help="Also apply the recipe grammar (minecraft: prefix, only \\[a-z0-9_=,] in brackets)."
        ),
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Invalid states are reported on stderr with a hint (did you mean ..., allowed values) and make the command
    exit 1. With --json, stdout gets a list of {input, ok, canonical, error: {code, message, hint}}.

    Examples:

        mcb block check 'oak_stairs\\[facing=east]'

        mcb block check --mc-version 1.20.4 stone 'minecraft:chest\\[type=left]'

        printf 'stone\\ndirt\\n' | mcb block check - --json
    """
    from mcb.blocks.checks import check_states
    from mcb.errors import FindingsError
    from mcb.wording import plural

    term = terminal(ctx, json_)
    inputs = _expand_stdin(states)
    report = check_states(inputs, mc_version, recipe_grammar=recipe)
    results = report["results"]

    def human() -> None:
        for item in results:
            if item["ok"]:
                term.line(item["canonical"])
            else:
                term.error(f"{item['input']}: {item['error']['message']}", item["error"]["hint"])

    term.emit(results, human)
    bad = sum(1 for item in results if not item["ok"])
    if bad:
        raise FindingsError(
            f"{bad:,} of {plural(len(results), 'block state')} invalid for Minecraft {report['release']}",
            code="block.check.failed",
        )


@block_app.command("describe")
@summarised("block_describe")
def describe(
    ctx: typer.Context,
    block_id: Annotated[str, typer.Argument(metavar="ID", help="Block id, e.g. oak_stairs or minecraft:oak_stairs.")],
    mc_version: McVersionOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Examples:

    mcb block describe oak_stairs

    mcb block describe minecraft:chest --mc-version 1.21.4 --json
    """
    from mcb.blocks.checks import describe_block

    term = terminal(ctx, json_)
    info = describe_block(block_id, mc_version)

    def human() -> None:
        term.kv(
            [
                ("id", info["id"]),
                ("release", f"{info['release']} (DataVersion {info['data_version']})"),
                ("default", info["default_state"]),
                ("behavior", ", ".join(info["behavior"]) or "-"),
            ]
        )
        if info["properties"]:
            rows = [(name, ", ".join(values), info["defaults"][name]) for name, values in info["properties"].items()]
            term.line()
            term.table(["property", "values", "default"], rows)
        else:
            term.line("properties: none")

    term.emit(info, human)


def _expand_stdin(states: list[str]) -> list[str]:
    expanded: list[str] = []
    for item in states:
        if item == "-":
            # bytes, decoded leniently: one undecodable byte makes that line an invalid state, not a traceback
            text = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
            expanded.extend(line.strip() for line in text.splitlines() if line.strip())
        else:
            expanded.append(item)
    return expanded


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.add_typer(block_app, name="block")
