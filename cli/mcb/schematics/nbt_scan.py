"""Validation-only scan of block-entity/entity lists (placeholder: delegates to the template parser)."""

from __future__ import annotations


def scan_entries(skimmer, n: int, depth: int):
    return type(skimmer).entries_parsed(skimmer, n, depth)
