"""``terrain_preview``, ``terrain_prepare`` and ``terrain_brush_prepare`` for ``mcb serve`` (terrain-materials.md
§1.9, §2–§4): the same checks, order, codes and messages as the plugin, on top of :mod:`mcb.terrain`.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

from mcb.server.api import RpcError, blockpos_text, invalid, loose_int, register_method, required_string
from mcb.terrain.brush import compile_brush, parse_brush
from mcb.terrain.brush_image import brush_preview_fields
from mcb.terrain.preview import render_preview
from mcb.terrain.recipe import TerrainRecipe, TerrainRecipeError, replaceable, validate_recipe
from mcb.terrain.tiling import tile_bounds, tile_targets

CACHE_LIMIT = 32
NOT_FOUND = "Terrain recipe expired or server restarted; call terrain_preview again with the saved recipe"
EMPTY_REASON = "No changed target blocks (unchanged or preserved)"
_NEIGHBOURS = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))

# One recipe cache per running server, in memory only (lost on restart like the plugin's LinkedHashMap).
_caches: weakref.WeakKeyDictionary[object, OrderedDict[str, TerrainRecipe]] = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def recipe_cache(state) -> OrderedDict[str, TerrainRecipe]:
    with _caches_lock:
        cache = _caches.get(state)
        if cache is None:
            cache = _caches[state] = OrderedDict()
        return cache


def remember(state, recipe: TerrainRecipe) -> None:
    """FIFO by first insertion: re-previewing a cached ID does not move it to the back."""
    cache = recipe_cache(state)
    with _caches_lock:
        cache[recipe.terrain_id] = recipe  # an existing key keeps its place
        while len(cache) > CACHE_LIMIT:
            cache.popitem(last=False)


def _tile_budget(state) -> int:
    return max(1, min(4096, int(state.config.max_plan_blocks)))


def _invalid_from(error: TerrainRecipeError) -> RpcError:
    return invalid(error.message)


# -- terrain_preview ------------------------------------------------------------------------------------------------


def terrain_preview(ctx, params: dict) -> dict:
    recipe_obj = params.get("recipe")
    try:
        recipe = validate_recipe(recipe_obj if isinstance(recipe_obj, dict) else None)
    except TerrainRecipeError as error:
        raise _invalid_from(error) from None
    resolution = (
        loose_int(params["resolution"], "Integer coordinate required: resolution") if "resolution" in params else 128
    )
    try:
        result = render_preview(recipe, resolution, _tile_budget(ctx.state))
    except TerrainRecipeError as error:
        raise _invalid_from(error) from None
    remember(ctx.state, recipe)
    return result


# -- terrain_prepare ------------------------------------------------------------------------------------------------


def terrain_prepare(ctx, params: dict) -> dict:
    state = ctx.state
    terrain_id = required_string(params, "terrain_id")
    recipe = recipe_cache(state).get(terrain_id)
    if recipe is None:
        raise RpcError("not_found", NOT_FOUND)
    tile_index = loose_int(params.get("tile_index"), "Integer coordinate required: tile_index")
    try:
        bounds = tile_bounds(recipe, tile_index, _tile_budget(state))
    except TerrainRecipeError as error:
        raise _invalid_from(error) from None
    targets = tile_targets(recipe, bounds)
    with state.main_thread():
        state.available()
        world = state.world
        if not world.in_region(bounds.min) or not world.in_region(bounds.max):
            raise RpcError("out_of_bounds", "Terrain tile exceeds current project area")
        canonical = {text: state.canonicalize(text) for text in set(targets.values())}
        desired = {pos: canonical[text] for pos, text in targets.items()}
        changed = False
        for pos, want in desired.items():  # generation order: z, x, y
            before = world.read(pos)
            changed |= before != want
            if not replaceable(before):
                raise RpcError(
                    "protected_terrain",
                    f"Tile contains a building or non-terrain block at "
                    f"{blockpos_text(pos)}; preserve it explicitly or choose "
                    "another tile",
                )
            _check_surroundings(world, pos, desired)
        if not changed:
            return {
                "status": "empty",
                "terrain_id": terrain_id,
                "tile_index": tile_index,
                "tile_bounds": bounds.region("terrain"),
                "changed_blocks": 0,
                "reason": EMPTY_REASON,
            }
        summary = state.create_plan("terrain", list(desired.items()), check_available=False)
    summary = dict(summary)
    summary.update({"terrain_id": terrain_id, "tile_index": tile_index, "tile_bounds": bounds.region("terrain")})
    return summary


def _check_surroundings(world, pos, desired) -> None:
    if not world.in_region(pos):
        raise RpcError("out_of_bounds", "Recipe exceeds project region")
    for dx, dy, dz in _NEIGHBOURS:
        neighbour = (pos[0] + dx, pos[1] + dy, pos[2] + dz)
        if neighbour in desired or not world.within_height(neighbour):
            continue
        world.read(neighbour)  # any readable state is supported under the runtime-registry policy


# -- terrain_brush_prepare ------------------------------------------------------------------------------------------


def terrain_brush_prepare(ctx, params: dict) -> dict:
    state = ctx.state
    brush_obj = params.get("brush")
    try:
        spec = parse_brush(brush_obj if isinstance(brush_obj, dict) else None)
    except TerrainRecipeError as error:
        raise _invalid_from(error) from None
    with state.main_thread():
        state.available()
        world = state.world
        lo, hi = spec.bounds.min, spec.bounds.max
        if not world.in_region(lo) or not world.in_region(hi):
            raise RpcError("out_of_bounds", "Brush scan including halo exceeds project area")
        snapshot = {}
        for y in range(lo[1], hi[1] + 1):
            for z in range(lo[2], hi[2] + 1):
                for x in range(lo[0], hi[0] + 1):
                    snapshot[(x, y, z)] = world.read((x, y, z))
        try:
            result = compile_brush(spec, snapshot, _tile_budget(state))
        except TerrainRecipeError as error:
            raise _invalid_from(error) from None
        if not result.desired:
            preview = brush_preview_fields(result)
            preview.update({"plan_state": "empty", "changed_blocks": 0})
            return preview
        desired = {pos: state.canonicalize(text) for pos, text in result.desired.items()}
        for pos in desired:
            _check_surroundings(world, pos, desired)
        summary = state.create_plan("brush", list(desired.items()), dependencies=list(snapshot), check_available=False)
    preview = brush_preview_fields(result)
    preview.update(summary)
    preview["plan_state"] = "prepared"
    return preview


def register_methods() -> None:
    from mcb.server.world import register_ground
    from mcb.terrain.ground import default_ground

    # `mcb serve` starts new worlds on this terrain; "flat" stays available (and is what the tests pin down).
    register_ground("hills", lambda config: default_ground())
    register_method("terrain_preview", terrain_preview, main_thread=False)
    register_method("terrain_prepare", terrain_prepare, main_thread=False)
    register_method("terrain_brush_prepare", terrain_brush_prepare, main_thread=False)
