"""The generator's decoding rules (spec sponge-rotation-blockdata.md §D.1), on hand-made minecraft-data records."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gen_registry.py"


@pytest.fixture(scope="module")
def gen():
    spec = importlib.util.spec_from_file_location("gen_registry", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stairs_record(default_offset: int) -> dict:
    return {
        "name": "oak_stairs",
        "minStateId": 100,
        "maxStateId": 179,
        "defaultState": 100 + default_offset,
        "states": [
            {"name": "facing", "type": "enum", "num_values": 4, "values": ["north", "south", "west", "east"]},
            {"name": "half", "type": "enum", "num_values": 2, "values": ["top", "bottom"]},
            {
                "name": "shape",
                "type": "enum",
                "num_values": 5,
                "values": ["straight", "inner_left", "inner_right", "outer_left", "outer_right"],
            },
            {"name": "waterlogged", "type": "bool", "num_values": 2},
        ],
    }


def defaults_of(decoded) -> dict[str, str]:
    _, properties, digits = decoded
    return {name: values[digit] for (name, values), digit in zip(properties, digits)}


def test_spec_example_offset_11(gen):
    # §D.1: oak_stairs offset 11 with radices 4,2,5,2 -> north, bottom, straight, false.
    assert defaults_of(gen.decode_block(stairs_record(11))) == {
        "facing": "north",
        "half": "bottom",
        "shape": "straight",
        "waterlogged": "false",
    }


def test_last_property_varies_fastest_and_bool_index_0_is_true(gen):
    assert defaults_of(gen.decode_block(stairs_record(0)))["waterlogged"] == "true"
    assert defaults_of(gen.decode_block(stairs_record(1)))["waterlogged"] == "false"
    assert defaults_of(gen.decode_block(stairs_record(2)))["shape"] == "inner_left"
    assert defaults_of(gen.decode_block(stairs_record(79))) == {
        "facing": "east",
        "half": "bottom",
        "shape": "outer_right",
        "waterlogged": "false",
    }


def test_inconsistent_records_are_refused(gen):
    record = stairs_record(0)
    record["maxStateId"] = 180  # range no longer matches 4*2*5*2 combinations
    with pytest.raises(ValueError):
        gen.decode_block(record)
    record = stairs_record(80)  # default outside the range
    with pytest.raises(ValueError):
        gen.decode_block(record)


def test_missing_int_values_are_inferred_or_refused(gen):
    domains = gen.IntDomains()
    domains.learn(
        [
            {
                "name": "repeater",
                "states": [{"name": "delay", "type": "int", "num_values": 4, "values": ["1", "2", "3", "4"]}],
            }
        ]
    )
    old = {
        "name": "repeater",
        "minStateId": 0,
        "maxStateId": 3,
        "defaultState": 0,
        "states": [{"name": "delay", "type": "int", "num_values": 4}],
    }
    assert defaults_of(gen.decode_block(old, domains)) == {"delay": "1"}
    unknown = {
        "name": "thing",
        "minStateId": 0,
        "maxStateId": 6,
        "defaultState": 0,
        "states": [{"name": "odd", "type": "int", "num_values": 7}],
    }
    with pytest.raises(gen.IncompleteData):
        gen.decode_block(unknown, domains)
