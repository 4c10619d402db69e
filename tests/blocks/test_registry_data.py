"""Every block of every shipped release: its default state parses, canonicalises to itself and validates."""

from __future__ import annotations

import pytest

from mcb.blocks.registry import SHIPPED_RELEASES, load_registry
from mcb.blocks.state import parse_state


@pytest.mark.parametrize("release", list(SHIPPED_RELEASES))
def test_every_default_state_is_canonical_and_valid(release):
    reg = load_registry(release)
    assert reg.release == release and reg.data_version == SHIPPED_RELEASES[release]
    assert len(reg) > 500
    problems = []
    for name in reg.names():
        info = reg.block(name)
        default = info.default_state
        parsed = parse_state(default, recipe_grammar=True)  # also within the recipe grammar
        if parsed.name != name or reg.canonicalize(default) != default or not reg.is_valid(parsed):
            problems.append(default)
            continue
        keys = [key for key, _ in parsed.properties]
        if keys != sorted(info.properties) or dict(parsed.properties) != info.defaults:
            problems.append(default)
        for prop, values in info.properties.items():
            if not values or len(set(values)) != len(values) or info.defaults[prop] not in values:
                problems.append(f"{name}.{prop}")
        if len(default) > 1024:
            problems.append(f"{name}: default state longer than 1024")
    assert not problems, problems[:10]


@pytest.mark.parametrize("release", ["26.2", "1.20.4"])
def test_every_single_property_change_stays_valid(release):
    """Each allowed value of each property, set on its own, canonicalises to the default with that one change."""
    reg = load_registry(release)
    for name in reg.names():
        info = reg.block(name)
        for prop, values in info.properties.items():
            for value in values:
                expected = dict(info.defaults, **{prop: value})
                canonical = reg.canonicalize(f"{name}[{prop}={value}]")
                assert dict(parse_state(canonical).properties) == expected
