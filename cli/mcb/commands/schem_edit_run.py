"""The bodies of `mcb schem rotate` and `mcb schem mirror`, free of Typer, and their fast-path command-line reader.

:mod:`mcb.commands.schem_edit` (the Typer commands) and :mod:`mcb.fastpath` both call :func:`run_edit`. Building
the Typer/Click tree costs ~75 ms, a tenth of rotating a 256^3 build, so the fast path reads the plain shapes of
these command lines itself (:func:`parse_edit`); anything unusual (help, ``--``, glued short options, a missing or
option-like value, a non-numeric ``--degrees``, more than one FILE) returns None and Typer handles it, with Typer's
wording. ``tests/schematics/test_edit_fast_path.py`` runs the same command lines both ways.
"""

from __future__ import annotations

from pathlib import Path


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
    from mcb.schematics.edit_request import check_edit_request

    target, rules, version = check_edit_request(file, degrees=degrees, axis=axis, output=output, in_place=in_place,
                                                rules=rules, fmt=fmt)
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


def _print_edit(term, summary: dict) -> None:
    def human() -> None:
        what = (f"rotated {summary['degrees']}°" if summary["operation"] == "rotate"
                else f"mirrored across {summary['axis']}")
        term.line(f"{what} ({summary['rules']} rules, Minecraft {summary['release']}): {summary['output']}")
        term.kv([
            ("size (W x H x L)", " x ".join(str(v) for v in summary["size"])),
            ("offset", ", ".join(str(v) for v in summary["offset"])),
            ("format", summary["format"]),
            ("palette", f"{summary['palette_size']} states, {summary['palette_changed']} changed"),
        ])

    term.emit(summary, human)
    differ = summary["other_rules_differ"] if summary["other_rules"] == "geometric" else []
    if differ and not term.json_mode:
        shown = ", ".join(differ[:3]) + (f" and {len(differ) - 3} more" if len(differ) > 3 else "")
        term.warn(f"{len(differ)} block state(s) come out geometrically wrong with vanilla rules: {shown}; "
                  "use --rules geometric for a geometrically exact result")
