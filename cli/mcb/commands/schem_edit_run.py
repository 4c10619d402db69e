"""The bodies of `mcb schem rotate` and `mcb schem mirror`, free of Typer, and their fast-path command-line reader.

:mod:`mcb.commands.schem_edit` (the Typer commands) and :mod:`mcb.fastpath` both call :func:`run_edit`. Building
the Typer/Click tree costs ~75 ms, a tenth of rotating a 256^3 build, so the fast path reads the plain shapes of
these command lines itself (:func:`parse_edit`); anything unusual (help, ``--``, glued short options, a missing or
option-like value, a non-numeric ``--degrees``, more than one FILE) returns None and Typer handles it, with Typer's
wording. ``tests/schematics/test_edit_fast_path.py`` runs the same command lines both ways.
"""

from __future__ import annotations

from pathlib import Path

from mcb.errors import InputError, UsageError

# option -> (destination, takes a value), per command
_COMMON = {
    "--output": ("output", True), "-o": ("output", True),
    "--rules": ("rules", True),
    "--format": ("fmt", True),
    "--in-place": ("in_place", False),
    "--mc-version": ("mc_version", True),
    "--json": ("json_", False),
}
_OPTIONS = {
    "rotate": {**_COMMON, "--degrees": ("degrees", True), "-d": ("degrees", True)},
    "mirror": {**_COMMON, "--axis": ("axis", True), "-a": ("axis", True)},
}
_REQUIRED = {"rotate": "degrees", "mirror": "axis"}


def parse_edit(command: str, args: list[str]) -> dict | None:
    """The keyword arguments of :func:`run_edit` for ``args`` (what follows ``schem rotate|mirror``), or None when
    the command line is not one of the plain shapes this reader takes."""
    from mcb.fastpath import option_env, read_plain, whole_number

    read = read_plain(args, _OPTIONS[command], convert={"degrees": whole_number})
    if read is None:
        return None
    files, values, given = read
    if len(files) != 1 or _REQUIRED[command] not in given or "" in files:
        return None
    output = values.get("output")
    return {"file": Path(files[0]), "output": Path(output) if output is not None else None,
            "rules": values.get("rules", "vanilla"), "fmt": values.get("fmt"),
            "in_place": values.get("in_place", False),
            "mc_version": values["mc_version"] if "mc_version" in given else option_env("MCB_MC_VERSION"),
            "json_": values.get("json_", False), "degrees": values.get("degrees"), "axis": values.get("axis")}


def dispatch_edit(command: str, args: list[str]) -> int | None:
    """Run ``schem <command> <args>`` if the fast path takes it; return the exit code, else None."""
    values = parse_edit(command, args)
    if values is None:
        return None
    from mcb.fastpath import run_guarded

    json_ = values.pop("json_")
    return run_guarded(json_, lambda term: run_edit(term, **values))


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
    from mcb.background import import_in_background, settle_numpy_for_one_shot

    settle_numpy_for_one_shot()
    from mcb.schematics.document import load_for_rewrite

    warming = import_in_background("numpy")  # loads while the file inflates (zlib releases the GIL)
    try:
        document = load_for_rewrite(file)
        from mcb.schematics.transform import transform_file

        summary = transform_file(file, target, degrees=degrees, mirror_axis=axis, rules=rules, version=version,
                                 mc_version=mc_version, document=document)
    finally:
        if warming is not None:
            warming.join()
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
