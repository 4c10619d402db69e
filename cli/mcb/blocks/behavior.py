"""material_describe ``behavior`` flags derived from block data (filled in step 2)."""

from __future__ import annotations


def describe_behavior(info) -> dict:
    return {"behavior": []}
