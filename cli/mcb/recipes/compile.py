"""The recipe compiler, exactly as the plugin runs it for ``build_prepare`` (protocol §4.1–4.2, §3.6 steps 1 and 4).

API (also used by the local reference server)::

    compile_recipe(recipe, registry=None, *, max_blocks=4096) -> CompiledRecipe
        raises RecipeRejected(code, message, pointer)

* ``recipe`` is the decoded JSON value of ``params.recipe``: dict/list/str/int/float/bool/None as ``json.loads``
  returns them. Integer literals must arrive as ``int`` and every other number as ``float`` (``json.loads`` does
  this), because the server's strict integer grammar ``-?(0|[1-9][0-9]*)`` is applied by type: ``5.0``, ``5e0``,
  ``"5"`` and ``true`` are not integers.
* Checks run in the plugin's order and the first failure raises: the compiler's messages (``"Unknown field: k"``,
  ``"Missing field: k"``, ``"x must be an integer"``, ``"x exceeds 32-bit bounds"``, ``"Unsupported recipe
  version"``, ``"Unsupported operation: t"``, ``"Invalid inclusive region bounds"``, ``"Recipe scan budget
  exceeded"``, ``"Recipe block limit exceeded"``, ``"Expanded operation count exceeds limit"``, ``"Recipe nesting
  exceeds limit"``, ``"integer overflow"``/``"long overflow"`` for int32/int64 arithmetic overflow, ...) all with
  code ``invalid_request``; then, when ``registry`` is given, every desired state is canonicalized in compile
  order and the first invalid one raises ``unsupported_block`` "Invalid registered block or block properties".
  ``pointer`` (a JSON pointer into the recipe, relative to the recipe object) says where; it is not part of the
  server's message. This order is the one answer to "which error comes first": ``mcb recipe compile`` stops at
  it, and ``mcb recipe lint`` lists it first (:func:`first_rejection`).
* ``registry=None`` skips canonicalization (states stay as written).

The server runs dependency parsing and ``available()`` between those two steps; a caller that must keep that order
uses :func:`compile_geometry` (step 1) and :func:`canonicalize_states` (step 4) separately.

``CompiledRecipe``: ``positions`` (``(x, y, z)`` tuples in the compiler's first-insertion order) and ``states``
(parallel list; canonical after step 4), ``blocks()`` (pairs sorted y, z, x: the order the plan applies them),
``bounds``, ``palette()`` ([(state, count)], most used first), ``scan_used``/``scan_limit``,
``operations_expanded``, ``max_depth_reached``, ``max_blocks`` and ``summary()`` (the JSON of ``mcb recipe compile``).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, field

from mcb.recipes.budget import shape_charge

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_DEPTH = 8
MAX_EXPANDED_OPERATIONS = 4096
MAX_REPEAT_COUNT = 1024
DEFAULT_MAX_BLOCKS = 4096
SCAN_BUDGET_CAP = 2_000_000

BLOCK_PATTERN = re.compile(r"minecraft:[a-z0-9_]+(?:\[[a-z0-9_=,]+\])?")

Position = tuple[int, int, int]


class RecipeRejected(Exception):
    """The server would refuse the recipe: ``code`` is the protocol error code, ``message`` the server's text."""

    def __init__(self, code: str, message: str, pointer: str = ""):
        super().__init__(message)
        self.code = code
        self.message = message
        self.pointer = pointer

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "pointer": self.pointer}


def scan_budget(max_blocks: int) -> int:
    return min(SCAN_BUDGET_CAP, max_blocks * 16)


@dataclass
class CompiledRecipe:
    """Desired blocks in the compiler's first-insertion order; ``blocks()`` gives the engine's (y, z, x) order."""

    positions: list[Position]
    states: list[str]
    max_blocks: int
    scan_used: int
    scan_limit: int
    operations_expanded: int
    max_depth_reached: int
    canonical: bool = False
    _palette: Counter | None = field(default=None, repr=False)
    # Where each state as written first comes from (a JSON pointer to its ``block``): names the invalid one.
    state_pointers: dict[str, str] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.positions)

    def blocks(self) -> list[tuple[Position, str]]:
        """(position, state) pairs sorted as the plan applies them: by y, then z, then x."""
        pairs = zip(self.positions, self.states)
        return sorted(pairs, key=lambda item: (item[0][1], item[0][2], item[0][0]))

    @property
    def bounds(self) -> tuple[Position, Position] | None:
        if not self.positions:
            return None
        xs, ys, zs = zip(*self.positions)
        return (min(xs), min(ys), min(zs)), (max(xs), max(ys), max(zs))

    def palette(self) -> list[tuple[str, int]]:
        """States with their block counts, most used first, then by name."""
        if self._palette is None:
            self._palette = Counter(self.states)
        return sorted(self._palette.items(), key=lambda item: (-item[1], item[0]))

    def summary(self) -> dict:
        bounds = self.bounds
        return {
            "block_count": len(self.positions),
            "bounds": None
            if bounds is None
            else {
                "min": dict(zip("xyz", bounds[0])),
                "max": dict(zip("xyz", bounds[1])),
                "size": dict(zip("xyz", (hi - lo + 1 for lo, hi in zip(*bounds)))),
            },
            "palette": [{"state": state, "count": count} for state, count in self.palette()],
            "budgets": {
                "blocks": {"used": len(self.positions), "limit": self.max_blocks},
                "scan": {"used": self.scan_used, "limit": self.scan_limit},
                "operations": {"used": self.operations_expanded, "limit": MAX_EXPANDED_OPERATIONS},
                "nesting": {"used": self.max_depth_reached, "limit": MAX_DEPTH},
            },
            "canonical": self.canonical,
        }


def compile_recipe(recipe: object, registry=None, *, max_blocks: int = DEFAULT_MAX_BLOCKS) -> CompiledRecipe:
    """Step 1 (compile) then step 4 (canonicalize) of ``build_prepare``; see the module docstring."""
    compiled = compile_geometry(recipe, max_blocks=max_blocks)
    if registry is not None:
        canonicalize_states(compiled, registry)
    return compiled


def first_rejection(recipe: object, registry=None, *, max_blocks: int = DEFAULT_MAX_BLOCKS) -> RecipeRejected | None:
    """The error the server reports first for ``recipe`` (None when it compiles)."""
    try:
        compile_recipe(recipe, registry, max_blocks=max_blocks)
    except RecipeRejected as rejected:
        return rejected
    return None


def canonicalize_states(compiled: CompiledRecipe, registry) -> CompiledRecipe:
    """Replace every state by the registry's canonical form, in compile order; unsupported_block on the first failure."""
    from mcb.blocks.state import BlockStateError

    cache: dict[str, str] = {}
    states = compiled.states
    for index, state in enumerate(states):
        canonical = cache.get(state)
        if canonical is None:
            try:
                canonical = registry.canonicalize(state)
            except BlockStateError:
                raise RecipeRejected(
                    "unsupported_block",
                    "Invalid registered block or block properties",
                    compiled.state_pointers.get(state, ""),
                ) from None
            cache[state] = canonical
        states[index] = canonical
    compiled.canonical = True
    compiled._palette = None
    return compiled


def compile_geometry(recipe: object, *, max_blocks: int = DEFAULT_MAX_BLOCKS) -> CompiledRecipe:
    """The plugin's RecipeCompiler: strict fields, strict integers, the four shapes, budgets; invalid_request errors."""
    if not isinstance(max_blocks, int) or max_blocks < 1 or max_blocks > SCAN_BUDGET_CAP:
        raise RecipeRejected("invalid_request", "Invalid recipe block limit")
    _fields(recipe, ("version", "operations"), "")
    if _integer(recipe, "version", "") != 1:
        raise RecipeRejected("invalid_request", "Unsupported recipe version", "/version")
    builder = _Builder(max_blocks)
    builder.operations(_array(recipe, "operations", ""), (0, 0, 0), 0, "/operations")
    return CompiledRecipe(
        positions=list(builder.blocks),
        states=list(builder.blocks.values()),
        max_blocks=max_blocks,
        scan_used=builder.visits,
        scan_limit=builder.max_visits,
        operations_expanded=builder.operation_count,
        max_depth_reached=builder.deepest,
        state_pointers=builder.state_pointers,
    )


class _Builder:
    def __init__(self, max_blocks: int):
        self.max_blocks = max_blocks
        self.max_visits = scan_budget(max_blocks)
        self.visits = 0
        self.operation_count = 0
        self.deepest = 0
        self.blocks: dict[Position, str] = {}
        self.state_pointers: dict[str, str] = {}

    def operations(self, operations: list, offset: Position, depth: int, pointer: str) -> None:
        if depth > MAX_DEPTH:
            raise RecipeRejected("invalid_request", "Recipe nesting exceeds limit", pointer)
        if len(operations) > MAX_EXPANDED_OPERATIONS:
            raise RecipeRejected("invalid_request", "Too many operations", pointer)
        self.deepest = max(self.deepest, depth)
        for index, operation in enumerate(operations):
            where = f"{pointer}/{index}"
            self.operation_count += 1
            if self.operation_count > MAX_EXPANDED_OPERATIONS:
                raise RecipeRejected("invalid_request", "Expanded operation count exceeds limit", where)
            if not isinstance(operation, dict):
                raise RecipeRejected("invalid_request", "Operation must be an object", where)
            kind = _string(operation, "type", where)
            if kind == "box":
                self.box(operation, offset, where)
            elif kind == "line":
                self.line(operation, offset, where)
            elif kind == "cylinder":
                self.cylinder(operation, offset, where)
            elif kind == "repeat":
                self.repeat(operation, offset, depth, where)
            else:
                raise RecipeRejected("invalid_request", f"Unsupported operation: {kind}", where + "/type")

    def box(self, operation: dict, offset: Position, where: str) -> None:
        _fields(operation, ("type", "min", "max", "block", "hollow"), where)
        low = _add(_position(operation, "min", where), offset, where + "/min")
        high = _add(_position(operation, "max", where), offset, where + "/max")
        if low[0] > high[0] or low[1] > high[1] or low[2] > high[2]:
            raise RecipeRejected("invalid_request", "Invalid inclusive region bounds", where)
        width, height, depth = (high[i] - low[i] + 1 for i in range(3))
        self.charge(shape_charge(operation), where)
        block = _block(operation, where)
        hollow = _bool(operation, "hollow", where)
        xs, ys, zs = range(low[0], high[0] + 1), range(low[1], high[1] + 1), range(low[2], high[2] + 1)
        if not hollow or width <= 2 or height <= 2 or depth <= 2:
            # Any axis at most 2 thick leaves no interior: every cell is on a face.
            cells = ((x, y, z) for y, z, x in itertools.product(ys, zs, xs))
        else:
            cells = (
                (x, y, z)
                for y, z, x in itertools.product(ys, zs, xs)
                if y == low[1] or y == high[1] or z == low[2] or z == high[2] or x == low[0] or x == high[0]
            )
        self.put_all(cells, block, where)

    def line(self, operation: dict, offset: Position, where: str) -> None:
        _fields(operation, ("type", "from", "to", "block"), where)
        start = _add(_position(operation, "from", where), offset, where + "/from")
        end = _add(_position(operation, "to", where), offset, where + "/to")
        dx, dy, dz = end[0] - start[0], end[1] - start[1], end[2] - start[2]
        steps = max(abs(dx), abs(dy), abs(dz))
        self.charge(shape_charge(operation), where)
        block = _block(operation, where)
        if steps == 0:
            self.put_all((start,), block, where)
            return
        twice = 2 * steps
        # round(delta * s / steps) with halves toward +infinity, in exact integer arithmetic (floor division).
        cells = (
            (
                start[0] + (2 * dx * s + steps) // twice,
                start[1] + (2 * dy * s + steps) // twice,
                start[2] + (2 * dz * s + steps) // twice,
            )
            for s in range(steps + 1)
        )
        self.put_all(cells, block, where)

    def cylinder(self, operation: dict, offset: Position, where: str) -> None:
        _fields(operation, ("type", "center", "radius", "height", "block", "hollow"), where)
        center = _add(_position(operation, "center", where), offset, where + "/center")
        radius = _integer(operation, "radius", where)
        height = _integer(operation, "height", where)
        if radius < 0 or height < 1:
            raise RecipeRejected("invalid_request", "Cylinder radius must be nonnegative and height positive", where)
        self.charge(shape_charge(operation), where)
        for value in (
            center[0] - radius,
            center[0] + radius,
            center[2] - radius,
            center[2] + radius,
            center[1] + height - 1,
        ):
            _int32(value, where)
        block = _block(operation, where)
        hollow = _bool(operation, "hollow", where)
        outer, inner = radius * radius, (radius - 1) * (radius - 1)
        ring = [
            (x, z)
            for z in range(-radius, radius + 1)
            for x in range(-radius, radius + 1)
            if x * x + z * z <= outer and (not hollow or radius == 0 or x * x + z * z > inner)
        ]
        cx, cy, cz = center
        cells = ((cx + x, cy + y, cz + z) for y in range(height) for x, z in ring)
        self.put_all(cells, block, where)

    def repeat(self, operation: dict, offset: Position, depth: int, where: str) -> None:
        _fields(operation, ("type", "count", "offset", "operations"), where)
        count = _integer(operation, "count", where)
        if count < 1 or count > MAX_REPEAT_COUNT:
            raise RecipeRejected("invalid_request", "Repeat count must be 1..1024", where + "/count")
        step = _position(operation, "offset", where)
        children = _array(operation, "operations", where)
        for i in range(count):
            displacement = tuple(_int32(component * i, where + "/offset") for component in step)
            self.operations(children, _add(offset, displacement, where + "/offset"), depth + 1, where + "/operations")

    def charge(self, amount: int, where: str) -> None:
        """Add one shape's scan charge (mcb.recipes.budget.shape_charge, the one formula); a product beyond a
        Java long is the server's "long overflow", as Math.multiplyExact throws it for any factor's step."""
        self.visits = _long(self.visits + _long(amount, where), where)
        if self.visits > self.max_visits:
            raise RecipeRejected("invalid_request", "Recipe scan budget exceeded", where)

    def put_all(self, cells, block: str, where: str) -> None:
        self.state_pointers.setdefault(block, where + "/block")
        blocks, limit = self.blocks, self.max_blocks
        for cell in cells:
            if cell not in blocks and len(blocks) >= limit:
                raise RecipeRejected("invalid_request", "Recipe block limit exceeded", where)
            blocks[cell] = block


def _int32(value: int, where: str) -> int:
    if value < INT32_MIN or value > INT32_MAX:
        raise RecipeRejected("invalid_request", "integer overflow", where)
    return value


def _long(value: int, where: str) -> int:
    if value < INT64_MIN or value > INT64_MAX:
        raise RecipeRejected("invalid_request", "long overflow", where)
    return value


def _add(a: Position, b: Position, where: str) -> Position:
    return (_int32(a[0] + b[0], where), _int32(a[1] + b[1], where), _int32(a[2] + b[2], where))


def _fields(obj: object, accepted: tuple[str, ...], where: str) -> None:
    if not isinstance(obj, dict):
        raise RecipeRejected("invalid_request", "Expected an object", where)
    for key in obj:
        if key not in accepted:
            raise RecipeRejected("invalid_request", f"Unknown field: {key}", _child(where, key))


def _required(obj: dict, name: str, where: str) -> object:
    value = obj.get(name)
    if value is None:
        raise RecipeRejected("invalid_request", f"Missing field: {name}", where)
    return value


def _integer(obj: dict, name: str, where: str) -> int:
    value = _required(obj, name, where)
    if type(value) is not int:
        raise RecipeRejected("invalid_request", f"{name} must be an integer", _child(where, name))
    if value < INT32_MIN or value > INT32_MAX:
        raise RecipeRejected("invalid_request", f"{name} exceeds 32-bit bounds", _child(where, name))
    return value


def _string(obj: dict, name: str, where: str) -> str:
    value = _required(obj, name, where)
    if not isinstance(value, str):
        raise RecipeRejected("invalid_request", f"{name} must be a string", _child(where, name))
    return value


def _bool(obj: dict, name: str, where: str) -> bool:
    if name not in obj:
        return False
    value = obj[name]
    if not isinstance(value, bool):  # JSON null counts as present here, unlike required fields
        raise RecipeRejected("invalid_request", f"{name} must be a boolean", _child(where, name))
    return value


def _array(obj: dict, name: str, where: str) -> list:
    value = _required(obj, name, where)
    if not isinstance(value, list):
        raise RecipeRejected("invalid_request", f"{name} must be an array", _child(where, name))
    return value


def _position(parent: dict, name: str, where: str) -> Position:
    value = _required(parent, name, where)
    here = _child(where, name)
    if not isinstance(value, dict):
        raise RecipeRejected("invalid_request", f"{name} must be a position object", here)
    _fields(value, ("x", "y", "z"), here)
    return (_integer(value, "x", here), _integer(value, "y", here), _integer(value, "z", here))


def _block(obj: dict, where: str) -> str:
    block = _string(obj, "block", where)
    if _utf16_length(block) > 1024 or not BLOCK_PATTERN.fullmatch(block):
        raise RecipeRejected("invalid_request", "Expected a Minecraft block state string", where + "/block")
    return block


def _utf16_length(text: str) -> int:
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _child(where: str, key: str) -> str:
    return f"{where}/{key.replace('~', '~0').replace('/', '~1')}"
