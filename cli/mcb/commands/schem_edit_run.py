"""The bodies of `mcb schem rotate` and `mcb schem mirror`, free of Typer (:mod:`mcb.commands.schem_edit` holds
the Typer commands)."""

from __future__ import annotations

from pathlib import Path

from mcb.errors import InputError, UsageError

def run_edit(term, file: Path, *, degrees: int | None = None, axis: str | None = None, output: Path | None,
             rules: str, fmt: str | None, in_place: bool, mc_version: str | None) -> None:
    """Rotate (``degrees``) or mirror (``axis``) ``file`` and print the summary through ``term``."""
    from mcb.blocks.transform import ROTATIONS

    if axis is None:
        if degrees not in ROTATIONS:
            raise UsageError(f"--degrees must be 90, 180 or 270, not {degrees}")
    elif axis not in ("x", "z"):
        raise UsageError(f"--axis must be x or z, not {axis!r}", hint="x swaps east/west, z swaps north/south")
    target = _check_paths(file, output, in_place)
    rules, version = _rules(rules), _sponge_version(fmt)
    from mcb.background import settle_numpy_for_one_shot

    settle_numpy_for_one_shot()
    from mcb.schematics.transform import transform_file

    summary = transform_file(file, target, degrees=degrees, mirror_axis=axis, rules=rules, version=version,
                             mc_version=mc_version)
    _print_edit(term, summary)


def _check_paths(source: Path, output: Path | None, in_place: bool, suffix: str = ".schem") -> Path:
    if not source.is_file():
        raise InputError(f"no such schematic file: {source}")
    if in_place and output is not None:
        raise UsageError("give either -o/--output or --in-place, not both")
    if in_place:
        return source
    if output is None:
        raise UsageError("missing -o/--output", hint=f"e.g. -o rotated{suffix}, or --in-place to overwrite FILE")
    if output.resolve() == source.resolve():
        raise UsageError("the output is the input file", hint="use --in-place to overwrite it on purpose")
    return output


def _sponge_version(value: str | None) -> int | None:
    if value is None:
        return None
    versions = {"v2": 2, "2": 2, "v3": 3, "3": 3}
    if value.lower() not in versions:
        raise UsageError(f"unknown schematic format {value!r}", hint="use v2 or v3")
    return versions[value.lower()]


def _rules(value: str) -> str:
    if value not in ("vanilla", "geometric"):
        raise UsageError(f"unknown rule set {value!r}", hint="use vanilla or geometric")
    return value


def _print_edit(term, summary: dict) -> None:
    from mcb.wording import plural

    def human() -> None:
        what = (f"rotated {summary['degrees']}°" if summary["operation"] == "rotate"
                else f"mirrored across {summary['axis']}")
        term.line(f"{what} ({summary['rules']} rules, Minecraft {summary['release']}): {summary['output']}")
        term.kv([
            ("size (W x H x L)", " x ".join(str(v) for v in summary["size"])),
            ("offset", ", ".join(str(v) for v in summary["offset"])),
            ("format", summary["format"]),
            ("palette", f"{plural(summary['palette_size'], 'state')}, {summary['palette_changed']} changed"),
        ])

    term.emit(summary, human)
    differ = summary["other_rules_differ"] if summary["other_rules"] == "geometric" else []
    if differ and not term.json_mode:
        shown = ", ".join(differ[:3]) + (f" and {len(differ) - 3} more" if len(differ) > 3 else "")
        term.warn(f"{len(differ)} block state(s) come out geometrically wrong with vanilla rules: {shown}; "
                  "use --rules geometric for a geometrically exact result")
