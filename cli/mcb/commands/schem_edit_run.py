"""The bodies of `mcb schem rotate` and `mcb schem mirror`, free of Typer (:mod:`mcb.commands.schem_edit` holds
the Typer commands)."""

from __future__ import annotations

from pathlib import Path


def run_edit(
    term,
    file: Path,
    *,
    degrees: int | None = None,
    axis: str | None = None,
    output: Path | None,
    rules: str,
    fmt: str | None,
    in_place: bool,
    mc_version: str | None,
    replace_unknown: str | None = None,
) -> None:
    """Rotate (``degrees``) or mirror (``axis``) ``file`` and print the summary through ``term``."""
    from mcb.commands.stdio import output_target
    from mcb.schematics.edit_request import check_edit_request

    output = output_target(term, output)
    target, rules, fmt = check_edit_request(
        file, degrees=degrees, axis=axis, output=output, in_place=in_place, rules=rules, fmt=fmt
    )
    from mcb.schematics.rewrite import transform_file

    summary = transform_file(
        file,
        target,
        degrees=degrees,
        mirror_axis=axis,
        rules=rules,
        fmt=fmt,
        mc_version=mc_version,
        replace_unknown=replace_unknown,
    )
    _print_edit(term, summary)


def _print_edit(term, summary: dict) -> None:
    from mcb.wording import dimensions, plural, shown

    def human() -> None:
        what = (
            f"rotated {summary['degrees']}°"
            if summary["operation"] == "rotate"
            else f"mirrored across {summary['axis']}"
        )
        term.line(
            f"{what} ({plural(summary['rules'], 'rule')}, Minecraft {summary['release']}): {shown(summary['output'])}"
        )
        term.kv(
            [
                ("size (W x H x L)", dimensions(*summary["size"])),
                ("offset", ", ".join(str(v) for v in summary["offset"])),
                ("format", summary["format"]),
                ("palette", f"{plural(summary['palette_size'], 'state')}, {summary['palette_changed']:,} changed"),
            ]
        )

    term.emit(summary, human)
    if not term.json_mode:
        from mcb.schematics.upgrade import UpgradeReport
        from mcb.wording import shown

        for line in UpgradeReport(**summary["upgrade"]).lines():
            term.info(shown(line))
        for loss in summary["losses"]:
            term.warn(loss["detail"])
    differ = summary["other_rules_differ"] if summary["other_rules"] == "geometric" else []
    if differ and not term.json_mode:
        from mcb.wording import plural

        shown = ", ".join(differ[:3]) + (f" and {len(differ) - 3:,} more" if len(differ) > 3 else "")
        term.warn(
            f"{plural(len(differ), 'block state')} come{'s' if len(differ) == 1 else ''} out geometrically "
            f"wrong with vanilla rules: {shown}; "
            "use --rules geometric for a geometrically exact result"
        )
