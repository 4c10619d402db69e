"""The `mcb schem` group and what its commands share; the commands live in mcb.commands.schem (validate, info,
convert), mcb.commands.schem_edit (rotate, mirror, render) and mcb.commands.schem_extras (extras)."""

from __future__ import annotations

import typer

from mcb.wording import plural, shown

schem_app = typer.Typer(
    help="Schematics offline, in every format (Sponge .schem v1-v3, Litematica .litematic, structure .nbt, legacy "
    ".schematic): validate, inspect, convert, rotate, mirror, render, and the data a build leaves out (extras).",
    no_args_is_help=True,
)


def _walk_tail(term, walked: dict) -> None:
    """What a walk passed by and could not read, on stderr; exit 1 when a file could not be read."""
    from mcb.errors import FindingsError

    if not term.json_mode:
        for entry in walked["skipped"]:
            term.info(f"skipped {shown(entry['file'])} ({entry['reason']})")
        for entry in walked["errors"]:
            term.error(f"{shown(entry['file'])}: {entry['error']['message']}", entry["error"].get("hint"))
    if walked["errors"]:
        raise FindingsError(
            f"{plural(len(walked['errors']), 'file')} of "
            f"{len(walked['errors']) + len(walked['files']):,} could not be read",
            code="schem.walk.unreadable",
        )
