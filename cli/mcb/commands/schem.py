"""`mcb schem`: validate, inspect and convert schematics offline (Sponge, Litematica, structure .nbt, legacy)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcb.commands.schem_group import _walk_tail, schem_app
from mcb.options import (
    ExcludeOpt,
    FormatOpt,
    GlobOpt,
    JobsOpt,
    JsonOpt,
    McVersionOpt,
    ReplaceUnknownOpt,
    SchematicFormatOpt,
    StrictOpt,
    UpgradeMcVersionOpt,
    complete_profile,
    summarised,
    terminal,
)
from mcb.wording import dimensions, plural, shown, tally


@schem_app.command("validate")
@summarised("schem_validate")
def validate(
    ctx: typer.Context,
    paths: Annotated[
        list[Path], typer.Argument(metavar="FILE|DIR", readable=False, help="Schematic files, or directories to walk.")
    ],
    profile: Annotated[
        str,
        typer.Option(
            "--profile",
            "-p",
            autocompletion=complete_profile,
            help="server: the plugin's import subset (default); spec: Sponge spec + WorldEdit interoperability.",
        ),
    ] = "server",
    mc_version: McVersionOpt = None,
    format_: FormatOpt = None,
    strict: StrictOpt = False,
    globs: GlobOpt = None,
    excludes: ExcludeOpt = None,
    jobs: JobsOpt = None,
    json_: JsonOpt = False,
) -> None:
    """--profile server (the default) checks the plugin's import subset; --profile spec checks the Sponge
    spec and WorldEdit interoperability instead. Every finding has a rule id, an NBT path, the server's own message where it has one, and a hint. The format
    is detected from content: Litematica, structure .nbt and legacy .schematic files are named as such (the
    server imports none of them; `mcb build FILE` builds them), Sponge v1/v3 get a conversion hint, and WorldEdit
    v2 files whose Offset is an absolute world position get a warning.
    Exit 0 when no file has errors (warnings fail only with --strict), 1 otherwise.

    Examples:

        mcb schem validate schematics/

        mcb schem validate house.schem --profile spec --mc-version 1.20.4

        mcb schem validate schematics/ --format sarif > schem.sarif

        mcb schem validate schematics/ --exclude 'old/*'
    """
    from mcb.commands.reporting import run_schem_validate

    run_schem_validate(
        terminal(ctx, json_),
        paths,
        profile=profile,
        mc_version=mc_version,
        format_=format_,
        strict=strict,
        glob=globs,
        exclude=excludes,
        jobs=jobs,
    )


@schem_app.command("info")
@summarised("schem_info")
def info(
    ctx: typer.Context,
    files: Annotated[
        list[Path],
        typer.Argument(metavar="FILE|DIR", readable=False, help="Schematic files in any format, or folders to walk."),
    ],
    top: Annotated[
        int | None,
        typer.Option(
            "--top",
            metavar="N",
            min=0,
            help="Show the N most common states (default 20 in text, all with --json; 0: all).",
        ),
    ] = None,
    mc_version: McVersionOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Format, version, regions, size, anchor, palette with counts, block entities, entities, what the upgrade to
    --mc-version (default 26.2) would change, and the server's verdict. One FILE: --json prints its object;
    several, or a folder: {"files": [...], "skipped": [...], "errors": [...]} (files that are not schematics are
    passed by and listed). Exit 0; 1 for an unreadable file, or a folder with no schematic.

    Examples:

        mcb schem info house.schem

        mcb schem info build.litematic --top 5

        mcb schem info schematics/

        mcb schem info house.schem --json | jq .palette
    """
    from mcb.schematics.info import describe_schematic
    from mcb.schematics.walk import each_schematic, is_single_file

    term = terminal(ctx, json_)
    shown_top = top if top is not None else (None if json_ or term.json_mode else 20)
    if is_single_file(files):
        data = describe_schematic(files[0], mc_version, top=shown_top or None)
        term.emit(data, lambda: _print_info(term, data))
        return
    walked = each_schematic(files, lambda path: describe_schematic(path, mc_version, top=shown_top or None))

    def human() -> None:
        for index, data in enumerate(walked["files"]):
            if index:
                term.line("")
            _print_info(term, data)

    term.emit(walked, human)
    _walk_tail(term, walked)


def _print_info(term, data: dict) -> None:
    size = data["size"]
    server = data["server"]
    target = server["target"]["release"]
    if server["accepted"]:
        verdict = f"accepted (target {target})"
    else:
        # the first refusal with its cause and detail, as `schem validate` words it, so it agrees with the rows above
        reason = server["reason"] or server["message"]
        if data["kind"] != "sponge":
            reason = "its import takes only Sponge v2 files of at most 4,096 cells"
        verdict = f"rejected (target {target}): {reason}; `mcb build FILE` builds it through the plugin"
    if data["kind"] == "legacy":
        version = "none (Minecraft 1.12 or older: its numeric ids are read as 1.13 states)"
    elif data["data_version"] is None:
        version = "none in the file"
    else:
        version = f"{data['data_version']}" + (f" (Minecraft {data['release']})" if data["release"] else "")
    anchor = ", ".join(map(str, data["offset"]))
    if data["worldedit_offset"] and data["stored_offset"]:
        anchor += (
            f"  (file Offset {', '.join(map(str, data['stored_offset']))}, WorldEdit WEOffset "
            f"{', '.join(map(str, data['worldedit_offset']))})"
        )
    rows = [
        ("file", shown(data["file"])),
        ("format", data["format"] + (" (gzip)" if data["compressed"] else " (raw NBT)")),
        ("DataVersion", version),
        (
            "size",
            f"{dimensions(size['width'], size['height'], size['length'])} (W x H x L) = {plural(data['volume'], 'cell')}",
        ),
        ("paste offset", anchor),
    ]
    if data["regions"]:
        rows.append(
            (
                "regions",
                "; ".join(
                    f"{shown(r['name'])} at {', '.join(map(str, r['position']))} size {dimensions(*r['size'])}"
                    for r in data["regions"]
                ),
            )
        )
    if data["palettes"] > 1:
        rows.append(("palettes", f"{data['palettes']} (the first is read)"))
    rows += [("non-air blocks", f"{data['non_air_blocks']:,}")]
    if data["void_cells"]:
        rows.append(("left unchanged", plural(data["void_cells"], "cell")))
    rows += [
        ("block entities", _counts(data["block_entities"])),
        ("entities", _counts(data["entities"])),
        ("biomes", "none" if not data["biomes"] else plural(len(data["biomes"]["palette"]), "kind")),
        ("server", verdict),
    ]
    term.kv(rows)
    upgrade = data["upgrade"]
    from mcb.schematics.upgrade import UpgradeReport

    lines = UpgradeReport(**upgrade).lines()
    if lines:
        term.line(f"to build it in Minecraft {upgrade['release']}:")
        for line in lines:
            term.line(f"  {shown(line)}")
    total = data["palette_size"]
    title = (
        f"palette ({plural(total, 'state')}"
        + (f", the {len(data['palette'])} most common" if len(data["palette"]) < total else "")
        + ")"
    )
    term.table(["state", "count"], [(p["state"], f"{p['count']:,}") for p in data["palette"]], title=title)


def _counts(group: dict) -> str:
    if not group["count"]:
        return "none"
    return f"{group['count']:,} ({tally(group['by_id'], 4, shown)})"


@schem_app.command("convert")
@summarised("schem_convert")
def convert(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="IN", readable=False, help="Schematic in any format.")],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="OUT", help="File to write (atomically).")],
    to: SchematicFormatOpt = None,
    drop_extras: Annotated[
        bool,
        typer.Option(
            "--drop-extras",
            help="Drop what the target format cannot hold "
            "(sponge2: block entities, entities, biomes; cells a file leaves "
            "unchanged become air) instead of refusing.",
        ),
    ] = False,
    replace_unknown: ReplaceUnknownOpt = None,
    mc_version: UpgradeMcVersionOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Reads every format; writes --to sponge2 (the server's format, the default for .schem), sponge3,
    litematic or structure (the default for .litematic and .nbt outputs). States are upgraded to --mc-version
    (default: the file's own release; legacy files: 26.2) and every change is reported. Refuses (exit 1) when
    the target would lose data, and says what; --drop-extras drops it on purpose.

    Examples:

        mcb schem convert worldedit_v3.schem -o house.schem

        mcb schem convert house.schem -o house_v3.schem --to sponge3

        mcb schem convert build.litematic -o build.schem --to sponge3

        mcb schem convert old.schematic -o old.nbt
    """
    from mcb.commands.stdio import output_target
    from mcb.fileio import refuse_input_as_output
    from mcb.schematics.convert import convert_schematic
    from mcb.schematics.formats import parse_format

    term = terminal(ctx, json_)
    fmt = parse_format(to)
    output = output_target(term, output)
    refuse_input_as_output(output, [file], hint="convert never rewrites its input: write a new file")
    result = convert_schematic(
        file, output, fmt=fmt, drop_extras=drop_extras, mc_version=mc_version, replace_unknown=replace_unknown
    )

    def human() -> None:
        anchor = "" if result["format"] == "structure" else f", offset {', '.join(map(str, result['offset']))}"
        term.line(
            f"wrote {shown(result['output'])} ({result['to']}, {plural(result['bytes'], 'byte')}{anchor}, "
            f"Minecraft {result['release']})"
        )
        for dropped in result["dropped"]:
            term.warn(f"dropped {shown(dropped)}")
        for note in result["notes"]:
            term.info(shown(note))
        server = result.get("server")
        if server and not server["accepted"]:
            term.warn(f"the server would still reject it: {server['message']}")

    term.emit(result, human)


def register(app: typer.Typer) -> None:
    """Add the `mcb schem` group; rotate/mirror/render come from mcb.commands.schem_edit, extras from
    mcb.commands.schem_extras."""
    from mcb.commands import schem_edit, schem_extras

    app.add_typer(schem_app, name="schem")
    schem_edit.register(app)
    schem_extras.register(app)
