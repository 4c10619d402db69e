"""Validation profiles for Sponge schematics.

* ``server`` (default): every acceptance rule of the plugin's import subset (protocol §6.4), target DataVersion
  from the selected registry (default 26.2 = 4903), plus the WorldEdit-offset warning.
* ``spec``: the Sponge specification of the file's version and WorldEdit interoperability (Palette present,
  PaletteMax = palette size, indices in range, positions inside the box), states checked against the registry of
  the file's own DataVersion unless ``mc_version`` is given.

``validate_schematic(path, profile=..., mc_version=...) -> FileReport`` never raises for bad input: every problem
is a :class:`~mcb.reports.model.Diagnostic` with a stable rule id.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from pathlib import Path

from mcb.errors import InputError, UsageError
from mcb.reports.model import Diagnostic, FileReport, Severity
from mcb.schematics import server_rules as server
from mcb.schematics.document import Document, load_document, not_sponge_error, read_source
from mcb.schematics.nbt import ReadLimits, gc_paused, tag_type
from mcb.schematics.rule_ids import RULES  # noqa: F401  (re-exported for the command's SARIF metadata)
from mcb.schematics.spec_rules import spec_findings

PROFILES = ("server", "spec")


def _diagnostic(rule: str, severity: Severity, message: str, file: str, pointer=None, hint=None) -> Diagnostic:
    return Diagnostic(rule=rule, severity=severity, message=message, file=file, pointer=pointer, hint=hint)


def _from_server(finding: server.ServerFinding, file: str) -> Diagnostic:
    return _diagnostic(finding.rule, Severity.ERROR, finding.text(), file, finding.pointer, finding.hint)


def resolve_target(profile: str, mc_version: str | int | None, file_data_version: int | None):
    """The registry to check states against (server: target release; spec: the file's own release)."""
    from mcb.blocks.registry import load_registry

    if profile == "server" or mc_version is not None:
        return load_registry(mc_version), None
    if file_data_version is None:
        return load_registry(None), None
    try:
        return load_registry(file_data_version), None
    except UsageError:
        return load_registry(None), (
            f"DataVersion {file_data_version} predates every packaged block list; "
            "states are checked against the default release"
        )


@gc_paused()  # the tree read is acyclic: collecting while rules walk it only rescans it (~10^5 tags)
def validate_schematic(
    source: str | os.PathLike,
    *,
    profile: str = "server",
    mc_version: str | int | None = None,
    limits: ReadLimits | None = None,
) -> FileReport:
    """Check one file; the report's ``facts`` carry format, version, size and the server's verdict (the answer of
    :func:`~mcb.schematics.server_rules.check_server_subset`, whatever the profile)."""
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r}", hint="choose server or spec")
    file = str(source)
    report = FileReport(file=file, facts={"profile": profile})
    limits = limits or ReadLimits()
    try:
        data, _ = read_source(source, limits)
    except InputError as error:
        report.diagnostics.append(
            _diagnostic(
                getattr(error, "rule", error.code),
                Severity.ERROR,
                error.message,
                file,
                getattr(error, "pointer", None),
                error.hint_template,
            )
        )
        report.facts["server_verdict"] = f"rejected: {error.message}"
        return report
    try:
        doc, read_error = load_document(data, limits, fast=True), None
        doc.path = file
    except InputError as error:
        doc, read_error = None, error
    from mcb.blocks.registry import load_registry

    target = load_registry(mc_version)
    verdict = server.check_server_subset(
        data, server_data_version=target.data_version, registry=target, build_model=False, document=doc
    )
    report.facts["server_verdict"] = "accepted" if verdict.accepted else f"rejected: {verdict.message}"
    if doc is None:
        if profile == "server":
            report.diagnostics += [_from_server(f, file) for f in verdict.findings]
        if profile != "server" or all(f.rule != getattr(read_error, "rule", None) for f in verdict.findings):
            report.diagnostics.append(
                _diagnostic(
                    getattr(read_error, "rule", read_error.code),
                    Severity.ERROR,
                    read_error.message,
                    file,
                    getattr(read_error, "pointer", None),
                    read_error.hint_template,
                )
            )
        return report
    report.facts.update(_facts(doc))
    if doc.kind != "sponge":
        error = not_sponge_error(doc)
        if profile == "server" and doc.kind != "unknown" and verdict.findings:
            # Another tool's format: the server's verdict and rule (its first refusal, as the plugin stops there),
            # with what the file is as the cause and how to convert it as the hint.
            first = dataclasses.replace(verdict.findings[0], cause=error.message, hint=error.hint_template)
            report.diagnostics.append(_from_server(first, file))
            return report
        if profile == "server" and doc.kind == "unknown":  # no better name for it: the server's verdict first
            report.diagnostics += [_from_server(f, file) for f in verdict.findings]
        if profile != "server" and doc.kind != "unknown":  # the spec profile checks the file as what it is
            registry, _ = resolve_target(profile, mc_version, report.facts.get("data_version"))
            report.facts["checked_against"] = {"release": registry.release, "data_version": registry.data_version}
            report.diagnostics += _other_format(doc, file, registry)
            return report
        if all(d.rule != error.rule for d in report.diagnostics):
            report.diagnostics.append(
                _diagnostic(error.rule, Severity.ERROR, error.message, file, "/", error.hint_template)
            )
        return report
    file_dv = report.facts.get("data_version")
    registry, registry_note = (target, None) if profile == "server" else resolve_target(profile, mc_version, file_dv)
    report.facts["checked_against"] = {"release": registry.release, "data_version": registry.data_version}
    server_found = verdict.findings
    if profile == "server":
        report.diagnostics += [_from_server(f, file) for f in server_found]
        if not (server_found and server_found[0].cause):  # the first finding names the version already
            report.diagnostics += _version_notes(doc, file, Severity.NOTE, server_found)
    else:
        report.diagnostics += _version_notes(doc, file, Severity.WARNING, [])
        report.diagnostics += spec_findings(doc, file, registry)
        if registry_note:
            report.diagnostics.append(
                _diagnostic(
                    "sponge.data_version.unknown", Severity.NOTE, registry_note, file, doc.pointer("DataVersion")
                )
            )
    report.diagnostics += _offset_warning(doc, file)
    if profile == "server" and file_dv is not None and file_dv < registry.data_version and not server_found:
        report.diagnostics.append(
            _diagnostic(
                "sponge.data_version.old",
                Severity.NOTE,
                f"DataVersion {file_dv} is older than the server's {registry.data_version}; the server does not upgrade "
                f"states, and every palette state is valid in {registry.release}",
                file,
                "/DataVersion",
            )
        )
    return report


def _other_format(doc: Document, file: str, registry) -> list[Diagnostic]:
    """A Litematica, structure or legacy file checked as what it is: read into the model, then upgraded to
    ``registry`` (what a build would do), each finding with its rule."""
    from mcb.schematics.document import BUILD_HINT
    from mcb.schematics.formats import from_document
    from mcb.schematics.upgrade import conversion_count, upgrade_schematic
    from mcb.wording import plural

    try:
        schem = from_document(doc)
    except InputError as error:  # the report names the file: its message need not
        return [
            _diagnostic(
                getattr(error, "rule", error.code),
                Severity.ERROR,
                error.message.removeprefix(f"{file}: "),
                file,
                getattr(error, "pointer", None),
                error.hint_template,
            )
        ]
    found = [_diagnostic("schem.format.other", Severity.NOTE, f"this is a {doc.label} file", file, "/", BUILD_HINT)]
    _, upgrade = upgrade_schematic(schem, registry, strict=False)
    if upgrade.data_version.get("note"):
        found.append(
            _diagnostic("schem.data_version.disagrees", Severity.WARNING, upgrade.data_version["note"], file, "/")
        )
    for entry in upgrade.unknown:
        found.append(
            _diagnostic(
                "schem.block.unknown",
                Severity.ERROR,
                f"{entry['block']} is unknown in Minecraft {registry.release} ({plural(entry['cells'], 'cell')})",
                file,
                "/",
                "choose its release with {mc_version}, or map it when building or converting with "
                "{replace_unknown=BLOCK}",
            )
        )
    for entry in upgrade.dropped_properties:
        found.append(
            _diagnostic(
                "schem.state.dropped",
                Severity.WARNING,
                f"{entry['block']} has no " + ", ".join(entry["properties"]) + f" in Minecraft "
                f"{registry.release} ({plural(entry['cells'], 'cell')}): dropped on build or "
                "conversion",
                file,
                "/",
            )
        )
    for entry in upgrade.renamed:
        found.append(
            _diagnostic(
                "schem.state.renamed",
                Severity.NOTE,
                f"{entry['from']} was renamed {entry['to']} in {entry['release']} "
                f"({plural(entry['cells'], 'cell')}): renamed on build or conversion",
                file,
                "/",
            )
        )
    for entry in upgrade.conversions:
        found.append(
            _diagnostic(
                "legacy.conversion",
                Severity.NOTE if entry["carried"] else Severity.WARNING,
                f"{entry['change']} ({conversion_count(entry)})",
                file,
                "/",
            )
        )
    found += [_diagnostic("schem.read.note", Severity.NOTE, note, file, "/") for note in upgrade.notes]
    return found + _id_findings(schem, file)


def _id_findings(schem, file: str) -> list[Diagnostic]:
    """Ids the game cannot read, of a model's block entities and entities (one finding per id)."""
    from mcb.schematics.block_entities import is_resource_location
    from mcb.wording import plural

    found = []
    for items, what in ((schem.block_entities, "block entity"), (schem.entities, "entity")):
        # a block entity without an id is a read note already (named after its block, or not writable)
        bad = Counter(item.id for item in items if not is_resource_location(item.id) and (item.id or what == "entity"))
        for ident, count in bad.items():
            text = "without an id" if not ident else f"id {ident!r} is not a resource location"
            found.append(
                _diagnostic(
                    "schem.id.invalid",
                    Severity.WARNING,
                    f"{plural(count, what, what.replace('entity', 'entities'))}: {text}: the game skips it",
                    file,
                    "/",
                    "an id is namespace:path of a-z, 0-9 and _ - . / (e.g. minecraft:chest)",
                )
            )
    return found


def _facts(doc: Document) -> dict:
    from mcb.blocks.registry import release_name

    body = doc.body
    facts: dict = {
        "format": doc.label,
        "kind": doc.kind,
        "version": doc.version,
        "compressed": doc.stats.compressed,
        "bytes": len(doc.data),
        "inflated_bytes": doc.stats.inflated_size,
    }
    data_version = (
        body.get("DataVersion")
        if doc.kind == "sponge"
        else doc.root.get("MinecraftDataVersion", doc.root.get("DataVersion"))
    )
    if isinstance(data_version, int):
        facts["data_version"] = int(data_version)
        facts["release"] = release_name(int(data_version))
    if doc.kind == "sponge" and all(isinstance(body.get(k), int) for k in ("Width", "Height", "Length")):
        facts["size"] = [int(body[k]) & 0xFFFF for k in ("Width", "Height", "Length")]
    elif doc.kind == "legacy":
        facts["data_version"] = 1519  # the 1.13 states its ids are read as
    return facts


def _version_notes(doc: Document, file: str, severity: Severity, server_found) -> list[Diagnostic]:
    """Name v1/v3 files as such and say how to convert (once, even if the server rules already refused)."""
    if doc.version == 2 and not doc.nonconforming_v3:
        return []
    if doc.nonconforming_v3:
        what = "a non-conforming Sponge v3 file (the v3 fields sit in the root instead of a 'Schematic' compound)"
    elif doc.version == 3:
        what = "Sponge v3 (WorldEdit 7.3+ default)"
    elif doc.version == 1:
        what = "Sponge v1"
    else:
        what = "a Sponge file without a Version tag (read as v1)"
    hint = "convert it: `mcb schem convert FILE -o OUT.schem` (or in WorldEdit: //schem save <name> sponge.2)"
    return [
        _diagnostic(
            "sponge.version.unsupported",
            severity,
            f"this is {what}; the server imports only Sponge v2",
            file,
            doc.pointer("Version"),
            hint,
        )
    ]


def _offset_warning(doc: Document, file: str) -> list[Diagnostic]:
    """WorldEdit v2 stores the absolute min corner in Offset; the server pastes at anchor + Offset (§0.1, §A.6)."""
    if doc.version == 3 and not doc.nonconforming_v3:
        return []
    meta = doc.body.get("Metadata")
    offset = doc.body.get("Offset")
    if not isinstance(meta, dict) or not all(isinstance(meta.get(f"WEOffset{a}"), int) for a in "XYZ"):
        return []
    we = [int(meta[f"WEOffset{a}"]) for a in "XYZ"]
    if offset is not None and (tag_type(offset) != 11 or len(offset) != 3):
        return []  # a malformed Offset has its own finding
    stored = [int(v) for v in offset] if offset is not None else [0, 0, 0]
    if stored == we:
        return []
    distance = max(abs(s - w) for s, w in zip(stored, we))
    if offset is None:  # nothing to call WorldEdit's: the server pastes at the anchor itself
        return [
            _diagnostic(
                "sponge.offset.worldedit",
                Severity.WARNING,
                f"the file has no Offset, so the server puts its min corner at the anchor, about {distance} blocks "
                f"from where WorldEdit pastes it (anchor + WEOffset {we})",
                file,
                doc.pointer("Metadata"),
                "normalise it: `mcb schem convert FILE -o OUT.schem` writes Offset = WEOffset",
            )
        ]
    return [
        _diagnostic(
            "sponge.offset.worldedit",
            Severity.WARNING,
            f"Offset {stored} is WorldEdit's absolute world position of the schematic; the server reads Offset as the "
            f"paste offset and would put the min corner at anchor + {stored}, about {distance:,} blocks from where "
            f"WorldEdit pastes it (anchor + WEOffset {we})",
            file,
            doc.pointer("Offset"),
            "normalise it: `mcb schem convert FILE -o OUT.schem` writes Offset = WEOffset",
        )
    ]


def validate_paths(
    paths,
    *,
    profile: str = "server",
    mc_version: str | int | None = None,
    globs: list[str] | None = None,
    excludes: list[str] | None = None,
    jobs: int | None = None,
    progress=None,
) -> list[FileReport]:
    """Walk files/directories and validate each schematic (every format); ``excludes`` skip files, named or
    walked, as in recipe lint. Walked files that are not schematics come back as skipped reports; a walk that
    finds no schematic at all raises InputError naming the folders (a CI job pointed at the wrong folder fails)."""
    from mcb.reports.runner import check_files
    from mcb.schematics.walk import mark_not_schematics, nothing_found, walk_schematics

    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r}", hint="choose server or spec")
    if mc_version is not None:
        from mcb.blocks.registry import load_registry

        load_registry(mc_version)  # a bad mc_version is a usage error before any file is read
    files, skipped = walk_schematics(paths, globs=globs, excludes=excludes, glob_hint=True)
    reports = check_files(
        files,
        lambda path: validate_schematic(path, profile=profile, mc_version=mc_version),
        jobs=jobs,
        progress=progress,
    )
    reports = mark_not_schematics(reports, [p for p in paths if not Path(p).is_dir()])
    if all(report.skipped for report in reports):
        raise nothing_found(paths, skipped + reports, glob_hint=True)
    return reports + skipped
