"""Library side of ``mcb block check`` and ``mcb block describe`` (also usable by the server and other tools)."""

from __future__ import annotations

from mcb.blocks.registry import Registry, load_registry
from mcb.blocks.state import BlockStateError, parse_state
from mcb.errors import InputError, escaped


def check_states(
    states: list[str], version: str | int | None = None, *, recipe_grammar: bool = False, suggestions: bool = False
) -> dict:
    """Validate block states against one release.

    Returns ``{"release", "data_version", "results": [{input, ok, canonical, error}]}`` where ``error`` is
    ``{code, message, hint}`` (``None`` when ok) and ``canonical`` is ``None`` when invalid. ``suggestions`` adds
    ``did_you_mean`` to each error: close block ids or property names, possibly none (the MCP tool's shape).
    """
    registry = load_registry(version)
    results = [check_state(registry, text, recipe_grammar=recipe_grammar, suggestions=suggestions) for text in states]
    return {"release": registry.release, "data_version": registry.data_version, "results": results}


def check_state(registry: Registry, text: str, *, recipe_grammar: bool = False, suggestions: bool = False) -> dict:
    try:
        if recipe_grammar:
            parse_state(text, recipe_grammar=True)
        canonical = registry.canonicalize(text)
    except BlockStateError as error:
        problem = {"code": error.code, "message": error.message, "hint": error.hint}
        if suggestions:
            problem["did_you_mean"] = list(error.details.get("suggestions") or [])
        return {"input": text, "ok": False, "canonical": None, "error": problem}
    return {"input": text, "ok": True, "canonical": canonical, "error": None}


def describe_block(block_id: str, version: str | int | None = None) -> dict:
    """Properties (names sorted, values in game order), defaults, default state and behavior of one block.

    Raises StateSyntaxError / UnknownBlockError (exit 1), or InputError when properties are given.
    """
    registry = load_registry(version)
    parsed = parse_state(block_id)
    if parsed.properties:
        raise InputError(
            f"expected a block id without properties, got {block_id!r}",
            hint=f"describe {escaped(parsed.name)} and check a full state with {{block_check}}",
            code="block.syntax",
        )
    info = registry.block(parsed.name)
    if info is None:
        registry.canonicalize(parsed)  # raises UnknownBlockError with suggestions
    behavior = registry.behavior(info.name)
    return {
        "id": info.name,
        "release": registry.release,
        "data_version": registry.data_version,
        "default_state": info.default_state,
        "properties": {name: list(info.properties[name]) for name in sorted(info.properties)},
        "defaults": {name: info.defaults[name] for name in sorted(info.defaults)},
        "behavior": behavior["behavior"],
    }
