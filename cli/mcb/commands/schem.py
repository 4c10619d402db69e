"""`mcb schem`: validate, inspect and convert Sponge schematics offline (protocol §6.4, Sponge spec)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcb.options import (
    ExcludeOpt, FormatOpt, GlobOpt, JobsOpt, JsonOpt, McVersionOpt, StrictOpt, complete_profile,
    complete_sponge_format, summarised, terminal,
)
from mcb.wording import plural, shown

schem_app = typer.Typer(
    help="Sponge schematics (.schem) offline: validate against the server's import subset or the Sponge spec, "
    "inspect, convert v1/v3 to the server's v2.",
    no_args_is_help=True,
)


@schem_app.command("validate")
@summarised("schem_validate")
def validate(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(metavar="FILE|DIR", readable=False, help="Schematic files, or directories to walk.")],
    profile: Annotated[str, typer.Option("--profile", "-p", autocompletion=complete_profile, help="server: the plugin's import subset (default); "
                                         "spec: Sponge spec + WorldEdit interoperability.")] = "server",
    mc_version: McVersionOpt = None,
    format_: FormatOpt = None,
    strict: StrictOpt = False,
    glob: GlobOpt = None,
    exclude: ExcludeOpt = None,
    jobs: JobsOpt = None,
    json_: JsonOpt = False,
) -> None:
    """--profile server (the default) checks the plugin's import subset; --profile spec checks the Sponge
    spec and WorldEdit interoperability instead. Every finding has a rule id, an NBT path, the server's own message where it has one, and a hint. The format
    is detected from content: Litematica and structure .nbt files are named as such, Sponge v1/v3 get a
    conversion hint, and WorldEdit v2 files whose Offset is an absolute world position get a warning.
    Exit 0 when no file has errors (warnings fail only with --strict), 1 otherwise.

    Examples:

        mcb schem validate schematics/

        mcb schem validate house.schem --profile spec --mc-version 1.20.4

        mcb schem validate schematics/ --format sarif > schem.sarif

        mcb schem validate schematics/ --exclude 'old/*'
    """
    from mcb.commands.reporting import run_schem_validate

    run_schem_validate(terminal(ctx, json_), paths, profile=profile, mc_version=mc_version, format_=format_,
                       strict=strict, glob=glob, exclude=exclude, jobs=jobs)


@schem_app.command("info")
@summarised("schem_info")
def info(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE", readable=False, help="Schematic file.")],
    mc_version: McVersionOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Examples:

        mcb schem info house.schem

        mcb schem info house.schem --json | jq .palette
    """
    from mcb.schematics.inspect import describe_schematic

    term = terminal(ctx, json_)
    data = describe_schematic(file, mc_version)
    term.emit(data, lambda: _print_info(term, data))


def _print_info(term, data: dict) -> None:
    size = data["size"]
    server = data["server"]
    verdict = "accepted" if server["accepted"] else f"rejected: {server['message']}"
    term.kv([
        ("file", shown(data["file"])),
        ("format", data["format"] + (" (gzip)" if data["compressed"] else " (raw NBT)")),
        ("DataVersion", f"{data['data_version']}" + (f" (Minecraft {data['release']})" if data["release"] else "")),
        ("size", f"{size['width']} x {size['height']} x {size['length']} (W x H x L) = {plural(data['volume'], 'cell')}"),
        ("paste offset", str(data["offset"]) + (f"  (file Offset {data['stored_offset']}, WorldEdit WEOffset "
                                                f"{data['worldedit_offset']})" if data["worldedit_offset"] else "")),
        ("non-air blocks", data["non_air_blocks"]),
        ("block entities", _counts(data["block_entities"])),
        ("entities", _counts(data["entities"])),
        ("biomes", "none" if not data["biomes"] else plural(len(data['biomes']['palette']), 'kind')),
        ("server", f"{verdict} (target {server['target']['release']})"),
    ])
    term.table(["#", "state", "count"], [(i, p["state"], p["count"]) for i, p in enumerate(data["palette"])],
               title=f"palette ({plural(len(data['palette']), 'entry', 'entries')})")


def _counts(group: dict) -> str:
    if not group["count"]:
        return "none"
    return f"{group['count']} (" + ", ".join(f"{shown(k)} x{n}" for k, n in list(group["by_id"].items())[:4]) + ")"


@schem_app.command("convert")
@summarised("schem_convert")
def convert(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="IN", readable=False, help="Sponge v1/v2/v3 schematic.")],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="OUT", help="File to write (atomically).")],
    to: Annotated[str, typer.Option("--format", "-f", autocompletion=complete_sponge_format,
                                          help="v2 (the server's format, default) or v3.")] = "v2",
    drop_extras: Annotated[bool, typer.Option("--drop-extras", help="v2: drop block entities, entities and biomes "
                                              "instead of refusing.")] = False,
    mc_version: McVersionOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Refuses (exit 1) when v2 would lose block entities, entities or biomes, and says what; --drop-extras
    drops them on purpose.

    Examples:

        mcb schem convert worldedit_v3.schem -o house.schem

        mcb schem convert house.schem -o house_v3.schem --format v3
    """
    from mcb.fileio import refuse_input_as_output
    from mcb.schematics.edit_request import sponge_version
    from mcb.schematics.inspect import convert_schematic

    from mcb.commands.stdio import output_target

    term = terminal(ctx, json_)
    output = output_target(term, output)
    refuse_input_as_output(output, [file], hint="convert never rewrites its input: write a new file")
    result = convert_schematic(file, output, version=sponge_version(to), drop_extras=drop_extras,
                               mc_version=mc_version)

    def human() -> None:
        term.line(f"wrote {shown(result['output'])} ({result['to']}, {plural(result['bytes'], 'byte')}, offset {result['offset']})")
        for dropped in result["dropped"]:
            term.warn(f"dropped {dropped}")
        for note in result["notes"]:
            term.info(note)
        server = result.get("server")
        if server and not server["accepted"]:
            term.warn(f"the server would still reject it: {server['message']}")

    term.emit(result, human)


def register(app: typer.Typer) -> None:
    """Add the `mcb schem` group; rotate/mirror/render come from mcb.commands.schem_edit."""
    from mcb.commands import schem_edit

    app.add_typer(schem_app, name="schem")
    schem_edit.register(app)
