"""The argument rules of rotate/mirror/convert, shared by `mcb schem ...` and the MCP tools.

Light on purpose (no numpy, no schematic reader): both faces check arguments with it before any file is read. An error names the
argument at fault in ``details["field"]`` so a face can point at it (the CLI prints the message and hint).
"""

from __future__ import annotations

from pathlib import Path

from mcb.blocks.transform import MIRROR_AXES, ROTATIONS, RULE_SETS
from mcb.errors import InputError, UsageError
from mcb.fileio import is_dash, refuse_input_as_output, regular_file_size
from mcb.schematics.formats import parse_format


def check_edit_request(
    source: Path,
    *,
    degrees: int | None,
    axis: str | None,
    output: Path | None,
    in_place: bool,
    rules: str,
    fmt: str | None,
) -> tuple[Path, str, str | None]:
    """(the file to write, the rule set, the format to write or None: decided by the output's name and the input)
    for a rotate (``degrees``) or a mirror (``axis``) of ``source``; UsageError/InputError for arguments that cannot
    work."""
    if axis is None:
        if degrees not in ROTATIONS or not degrees:  # 0 is no turn (the import's rotation, not an edit)
            raise UsageError(f"{{degrees}} must be 90, 180 or 270, not {degrees}", details={"field": "degrees"})
    elif axis not in MIRROR_AXES:
        raise UsageError(
            f"{{axis}} must be x or z, not {axis!r}",
            hint="x swaps east/west, z swaps north/south",
            details={"field": "axis"},
        )
    return edit_target(source, output, in_place), rule_set(rules), parse_format(fmt)  # checked in this order


def edit_target(source: Path, output: Path | None, in_place: bool) -> Path:
    """The file an edit writes: ``output``, or ``source`` itself with ``in_place``."""
    if is_dash(source):  # stdin: read once, later; there is no file to rewrite
        if in_place:
            raise UsageError(
                "{in_place} cannot rewrite stdin ('-')",
                hint="write the result with {output=FILE} or {output=-}",
                details={"field": "in_place"},
            )
    else:
        try:
            regular_file_size(source)
        except InputError as error:
            error.details = {"field": "path"}
            raise
    if in_place and output is not None:
        raise UsageError(
            "give either {output} or {in_place}, not both",
            hint="{output} writes a new file, {in_place} rewrites FILE",
            details={"field": "output"},
        )
    if in_place:
        return source
    if output is None:
        raise UsageError(
            "missing {output}",
            hint="e.g. {output=rotated.schem}, or {in_place} to overwrite FILE",
            details={"field": "output"},
        )
    refuse_input_as_output(output, [source], hint="use {in_place} to overwrite it on purpose")
    return output


def rule_set(value: str) -> str:
    if value not in RULE_SETS:
        raise UsageError(f"unknown rule set {value!r}", hint="use vanilla or geometric", details={"field": "rules"})
    return value
