"""The extras function as a file and as sentences: the header that says what it holds and how an operator runs
it, the function id of a datapack path, and the summary's lines for text output (:mod:`mcb.building.extras`
writes the commands)."""

from __future__ import annotations

import os
from pathlib import Path

from mcb.wording import plural, shown

MAX_FORCELOAD_CHUNKS = 256  # what one /forceload add takes


def function_id(output) -> str | None:
    """``namespace:path`` when ``output`` lies in a datapack's ``data/<namespace>/function/`` folder."""
    if output is None or str(output) == "-":
        return None
    parts = Path(os.path.abspath(output)).with_suffix("").parts
    for index in range(len(parts) - 3, 0, -1):
        if parts[index - 1] == "data" and parts[index + 1] in ("function", "functions"):
            rest = parts[index + 2 :]
            return f"{parts[index]}:{'/'.join(rest)}" if rest else None
    return None


def function_text(commands: list[str], summary: dict) -> str:
    """The ``.mcfunction`` file: a header saying what it is and how to run it, then one command per line."""
    target = ",".join(str(summary["target"][a]) for a in "xyz")
    turn = f"rotation {summary['rotation']}" + (f", mirror {summary['mirror']}" if summary["mirror"] else "")
    dv = summary["data_version"]
    bes, ents = summary["block_entities"], summary["entities"]
    name = summary.get("function") or "<namespace>:<name>"
    lines = [
        f"# Block-entity and entity data of {shown(Path(summary['file']).name)}, which a build does not place,",
        f"# for the build at {target} ({turn}) in Minecraft {summary['release']}"
        + (f" (the file's data: DataVersion {dv['read_as']})." if dv.get("read_as") else "."),
        f"# {plural(bes['written'], 'block entity', 'block entities')} (data merge block) and "
        f"{plural(ents['written'], 'entity', 'entities')} (summon): {plural(len(commands), 'command')}.",
        "#",
        "# Run it once, after the build, as an operator:",
        "#  1. put this file in a datapack, as <world>/datapacks/<pack>/data/<namespace>/function/<name>.mcfunction",
        "#     next to <pack>/pack.mcmeta, and run /reload;",
        f"#  2. load the build's chunks (stand next to it{_forceload(summary.get('box'))});",
        f"#  3. run /function {name}.",
        "# data merge block fills blocks already placed (a position without its block fails, the others go on);",
        "# summon adds the entities, so a second run adds them again.",
    ]
    for left, noun, many in (
        (bes["left_out"], "block entity", "block entities"),
        (ents["left_out"], "entity", "entities"),
    ):
        for entry in left:
            lines.append(f"# left out: {plural(entry['count'], noun, many)} {entry['reason']}")
    for entry in summary.get("not_upgraded", ()):
        lines.append(f"# {entry['outcome']}: {entry['what']} x{entry['count']:,}")
    lines += [f"# note: {note}" for note in summary.get("notes", ())]
    return "\n".join([*lines, *commands]) + "\n"


def _forceload(box: dict | None) -> str:
    if box is None:
        return ""
    low, high = box["min"], box["max"]
    chunks = (high["x"] // 16 - low["x"] // 16 + 1) * (high["z"] // 16 - low["z"] // 16 + 1)
    if chunks > MAX_FORCELOAD_CHUNKS:
        return ""
    return f", or /forceload add {low['x']} {low['z']} {high['x']} {high['z']}"


def summary_lines(summary: dict) -> list[str]:
    """The summary as sentences for text output (`mcb schem extras`, `mcb build --extras-function`): the first
    says what was written, the others what was left out, upgraded or kept as written."""
    bes, ents = summary["block_entities"], summary["entities"]
    run = f"/function {summary['function']}" if summary.get("function") else "/function <namespace>:<name>"
    lines = [
        f"wrote {shown(summary['output'])}: {plural(summary['commands'], 'command')} for "
        f"{plural(bes['written'], 'block entity', 'block entities')} and "
        f"{plural(ents['written'], 'entity', 'entities')} (run it with {run} in a datapack, after the build)"
    ]
    if bes["defaults_only"]:
        lines.append(
            f"{plural(bes['defaults_only'], 'block entity', 'block entities')} "
            f"{'holds' if bes['defaults_only'] == 1 else 'hold'} nothing a placed block lacks "
            "(empty containers, blank signs): no command needed"
        )
    for entries, noun, many in (
        (bes["left_out"], "block entity", "block entities"),
        (ents["left_out"], "entity", "entities"),
    ):
        lines += [f"left out {plural(e['count'], noun, many)} {e['reason']}" for e in entries]
    lines += [f"upgraded {e['change']}: {e['count']:,}" for e in summary.get("upgraded", ())]
    lines += [f"{e['outcome']}: {e['what']}: {e['count']:,}" for e in summary.get("not_upgraded", ())]
    return lines + list(summary.get("notes", ()))
