"""The BlockData check in a forked helper process (`mcb.schematics.offload`) answers exactly as the check in
process does, for good and hostile streams, and falls back to it when the helper cannot answer.

Each check runs in a fresh interpreter: the helper forks only from a process with no other thread, and the test
process may have some.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from schem_nbt_bytes import document, v2_entries

_SCRIPT = r"""
import json, sys
from mcb.schematics import offload, rules

answers = []
original = offload.PresenceHelper.answer

def answer(self, tag):
    result = original(self, tag)
    answers.append(result is not None)
    return result

offload.PresenceHelper.answer = answer
results = {"available": offload.available(), "files": {}}
for path in sys.argv[1:]:
    for profile in ("server", "spec"):
        answers.clear()
        helped = rules.validate_schematic(path, profile=profile, helper=True).to_json()
        used = any(answers)
        alone = rules.validate_schematic(path, profile=profile).to_json()
        results["files"][f"{path}:{profile}"] = {"same": helped == alone, "used": used,
                                                 "rules": sorted({d["rule"] for d in helped["diagnostics"]})}
# a helper that dies at once: every check falls back to this process, with the same reports
import os
offload._helper_main = lambda *args: os._exit(3)
results["dead"] = {}
for path in sys.argv[1:3]:
    answers.clear()
    helped = rules.validate_schematic(path, profile="spec", helper=True).to_json()
    results["dead"][path] = {"same": helped == rules.validate_schematic(path, profile="spec").to_json(),
                             "used": any(answers)}
# a helper that hangs: after ANSWER_TIMEOUT it is killed and the check runs here
import time
offload.ANSWER_TIMEOUT = 1.0
offload._helper_main = lambda *args: (time.sleep(60), os._exit(0))
started = time.monotonic()
answers.clear()
path = sys.argv[2]
helped = rules.validate_schematic(path, profile="server", helper=True).to_json()
results["hung"] = {"same": helped == rules.validate_schematic(path, profile="server").to_json(),
                   "used": any(answers), "seconds": time.monotonic() - started}
print(json.dumps(results))
"""


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _stream(values) -> bytes:
    return b"".join(_varint(v) for v in values)


def _palette(n: int):
    # n distinct valid states: redstone wire has 3^4 * 16 of them
    sides = ("none", "side", "up")
    states = [f"minecraft:redstone_wire[east={e},north={no},power={p},south={so},west={w}]"
              for e in sides for no in sides for so in sides for w in sides for p in range(16)]
    return tuple((state, i) for i, state in enumerate(states[:n]))


def _v2(data: bytes, palette_size: int, size=(100, 10, 100)) -> bytes:
    # uncompressed, so even a very regular stream makes a file big enough for the helper
    return document(v2_entries(data=data, palette=_palette(palette_size), size=size), compress=False)


def _v3(data: bytes, palette_size: int, size=(100, 10, 100)) -> bytes:
    blocks = [("Palette", 10, [(state, 3, index) for state, index in _palette(palette_size)]), ("Data", 7, data)]
    schematic = [("Version", 3, 3), ("DataVersion", 3, 4903), ("Width", 2, size[0]), ("Height", 2, size[1]),
                 ("Length", 2, size[2]), ("Blocks", 10, blocks)]
    return document([("Schematic", 10, schematic)], root_name="", compress=False)


def _cases() -> dict[str, bytes]:
    cells = 100 * 10 * 100
    two_byte = _stream(i % 600 for i in range(cells))
    cut = next(i for i in range(5000, len(two_byte)) if two_byte[i - 1] < 0x80)  # a boundary between entries
    head, tail = two_byte[:cut], two_byte[cut:]
    return {
        "one_byte": _v2(_stream(i % 100 for i in range(cells)), 100),
        "two_byte": _v2(two_byte, 600),
        "two_byte_v3": _v3(two_byte, 600),
        "outside_palette": _v2(_stream(i % 300 for i in range(cells)), 200),
        "truncated": _v2(two_byte + b"\x85", 600),
        "too_long": _v2(head + b"\x81\x80\x80\x80\x80\x01" + tail, 600),
        "non_canonical": _v2(head + b"\x81\x00" + tail, 600),
        "negative": _v2(head + b"\xff\xff\xff\xff\x0f" + tail, 600),
        "too_few": _v2(_stream(i % 600 for i in range(cells - 7)), 600),
        "too_many": _v2(two_byte + b"\x01\x02", 600),
        # more distinct values than the helper sends back: it declines and the check runs in process
        "many_values": _v2(_stream(5000 + i for i in range(70_000)), 600, size=(70, 10, 100)),
    }


def test_the_helper_answers_as_the_check_in_process(tmp_path):
    paths = {}
    for name, raw in _cases().items():
        path = tmp_path / f"{name}.schem"
        path.write_bytes(raw)
        assert len(raw) > 64 * 1024  # above the sizes the helper is used for
        paths[str(path)] = name
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, *paths], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    expected_rule = {
        "outside_palette": "server.blockdata.index", "truncated": "server.blockdata.truncated",
        "too_long": "server.blockdata.too_long", "non_canonical": "server.blockdata.non_canonical",
        "negative": "server.blockdata.negative", "too_few": "server.blockdata.too_few",
        "too_many": "server.blockdata.too_many",
    }
    for key, result in results["files"].items():
        path, profile = key.rsplit(":", 1)
        name = paths[path]
        assert result["same"], key
        # where the helper can run it must have answered, except where it declines (too many distinct values) or
        # nobody asks (the server profile stops at a v3 file's wrapper)
        asked = name != "many_values" and not (name == "two_byte_v3" and profile == "server")
        assert result["used"] == (results["available"] and asked), key
        if profile == "server" and name in expected_rule:
            assert expected_rule[name] in result["rules"], (name, result["rules"])
        if profile == "server" and name in ("one_byte", "two_byte"):
            assert not any(rule.startswith("server.blockdata") for rule in result["rules"]), result["rules"]
    assert len(results["dead"]) == 2
    for path, result in results["dead"].items():
        assert result == {"same": True, "used": False}, path
    hung = results["hung"]
    assert hung["same"] and not hung["used"]
    assert hung["seconds"] < 20 if not results["available"] else 1.0 <= hung["seconds"] < 20


def test_mcb_validate_prints_the_same_with_and_without_the_helper(corpus):
    large = str(corpus / "v2_nucleation_large_schematic.schem")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCB_")}
    for args, code, rule in ((["--profile", "server"], 1, "server.blockentities"),
                             (["--profile", "spec", "--format", "json"], 0, "sponge.offset.worldedit")):
        runs = [subprocess.run([sys.executable, "-m", "mcb", "schem", "validate", *args, large], capture_output=True,
                               text=True, timeout=120, env={**env, "MCB_HELPER": flag}) for flag in ("1", "0")]
        assert runs[0].returncode == runs[1].returncode == code
        assert runs[0].stdout == runs[1].stdout
        assert runs[0].stderr == runs[1].stderr
        assert rule in runs[0].stdout
