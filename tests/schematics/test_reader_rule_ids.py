"""One reader check, one rule id (issue 12 item 1): whatever profile asks, a reader limit is named the same."""

from __future__ import annotations

import gzip
import struct

import pytest
from schem_nbt_bytes import compound_body, document, name, v2_entries

from mcb.schematics.rule_ids import RULES
from mcb.schematics.rules import validate_schematic


def _raw(body: bytes) -> bytes:
    return gzip.compress(body, mtime=0)


def _root(extra: bytes) -> bytes:
    """A root compound '' holding the valid v2 entries, then ``extra`` bytes, then End."""
    return b"\x0a" + name("") + compound_body(v2_entries())[:-1] + extra + b"\x00"


CASES = {
    "nbt.empty": b"",
    "nbt.root.type": _raw(b"\x08" + name("") + name("text")),
    "nbt.truncated": _raw(_root(b"")[:-20]),
    "nbt.length.negative": _raw(_root(b"\x07" + name("X") + struct.pack(">i", -1))),
    "nbt.length.overflow": _root(b"\x07" + name("X") + struct.pack(">i", 1_000_000)),  # uncompressed input
    "nbt.list.end": _raw(_root(b"\x09" + name("X") + struct.pack(">bi", 0, 2))),
    "nbt.duplicate": document(v2_entries(extra=[("Version", 3, 2)]), ""),
    "nbt.string.encoding": _raw(_root(b"\x08" + name("X") + struct.pack(">H", 2) + b"\xff\xfe")),
    "nbt.tag.unknown": _raw(_root(b"\x0e" + name("X"))),
}


def test_every_case_is_a_reader_rule():
    assert set(CASES) <= {rule for rule in RULES if rule.startswith("nbt.")}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_a_reader_check_has_one_rule_id_in_every_profile(tmp_path, rule):
    path = tmp_path / "probe.schem"
    path.write_bytes(CASES[rule])
    for profile in ("server", "spec"):
        errors = [d.rule for d in validate_schematic(path, profile=profile).diagnostics if d.severity.value == "error"]
        assert rule in errors, (profile, errors)
        assert not [r for r in errors if r.startswith("server.nbt.") and r.endswith(rule.split(".")[-1])], errors


def test_the_inflated_size_cap_has_one_rule_id_in_every_profile(corpus):
    path = corpus / "v3_nucleation_stone_cube_1GB_inflated.schem"
    for profile in ("server", "spec"):
        errors = [d.rule for d in validate_schematic(path, profile=profile).diagnostics if d.severity.value == "error"]
        assert "nbt.limit.inflated" in errors, (profile, errors)
