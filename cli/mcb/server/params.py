"""Parameter parsing shared by every RPC handler (protocol §2): loose integers, positions, bounded strings."""

from __future__ import annotations

import time
from decimal import Decimal, InvalidOperation

from mcb.server.errors import RpcError, invalid

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
MAX_STRING = 256

Pos = tuple[int, int, int]


def now_ms() -> int:
    return int(time.time() * 1000)


def loose_int(value, message: str) -> int:
    """The plugin's loose integer rule: any JSON number or numeric string that is an exact int32 (``5``, ``5.0``,
    ``"5"``); booleans, fractions, objects and out-of-range values raise ``invalid_request`` with ``message``."""
    if isinstance(value, bool) or value is None:
        raise invalid(message)
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")) or not value.is_integer():
            raise invalid(message)
        number = int(value)
    elif isinstance(value, str):
        try:
            parsed = Decimal(value.strip())
        except InvalidOperation:
            raise invalid(message) from None
        if not parsed.is_finite() or parsed != parsed.to_integral_value():
            raise invalid(message)
        number = int(parsed)
    else:
        raise invalid(message)
    if not INT32_MIN <= number <= INT32_MAX:
        raise invalid(message)
    return number


def integer_param(params: dict, key: str, default: int | None = None) -> int:
    if key not in params or params[key] is None:
        if default is not None:
            return default
        raise invalid(f"Integer coordinate required: {key}")
    return loose_int(params[key], f"Integer coordinate required: {key}")


def loose_pos(value, *, message: str | None = None) -> Pos:
    """Parse ``{x,y,z}`` with the loose rule; extra keys are ignored."""
    if not isinstance(value, dict):
        raise invalid(message or "Integer coordinate required: x")
    return tuple(  # type: ignore[return-value]
        loose_int(value.get(axis), message or f"Integer coordinate required: {axis}") for axis in "xyz"
    )


def pos_param(params: dict, key: str) -> Pos:
    if key not in params or not isinstance(params[key], dict):
        raise invalid(f"Integer coordinate required: {key}")
    return loose_pos(params[key])


def required_string(params: dict, key: str) -> str:
    """Gson-style required string: coerced to text, non-blank, at most 256 characters."""
    value = params.get(key)
    text = _as_text(value)
    if text is None or not text.strip() or len(text) > MAX_STRING:
        raise invalid(f"Required bounded string: {key}")
    return text


def optional_string(params: dict, key: str) -> str | None:
    value = params.get(key)
    if value is None:
        return None
    text = _as_text(value)
    if text is None or len(text) > MAX_STRING:
        raise invalid(f"Required bounded string: {key}")
    return text


def _as_text(value) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return repr(value)  # Gson keeps the decimal point of a double
    return str(value)


def blockpos_text(pos: Pos) -> str:
    """Java record text used inside messages: ``BlockPos[x=1, y=64, z=2]``."""
    return f"BlockPos[x={pos[0]}, y={pos[1]}, z={pos[2]}]"


def pos_json(pos: Pos) -> dict:
    return {"x": pos[0], "y": pos[1], "z": pos[2]}


def pos_order(pos: Pos) -> tuple[int, int, int]:
    """Sort key of BlockPos: y, then z, then x."""
    return (pos[1], pos[2], pos[0])


def region_json(world_id: str, low: Pos, high: Pos) -> dict:
    return {"worldId": world_id, "min": pos_json(low), "max": pos_json(high)}


def check_bounds(low: Pos, high: Pos) -> None:
    if any(a > b for a, b in zip(low, high)):
        raise invalid("Invalid inclusive region bounds")


def require_admin(is_admin: bool, message: str) -> None:
    if not is_admin:
        raise RpcError("permission_denied", message)
