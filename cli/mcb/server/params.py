"""Parameter parsing shared by every RPC handler (protocol §2): loose integers, positions, bounded strings."""

from __future__ import annotations

import re
import time

from mcb.server.errors import invalid

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
MAX_STRING = 256
MAX_DECIMAL_TEXT = 10_000  # a longer numeric text is refused unread: the work stays bounded by this, not the body
# Java's BigDecimal(String) grammar, ASCII digits: 5, +5, -5., .5, 5.0e-1, 5E+3
_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?)([0-9]+))?", re.ASCII)

Pos = tuple[int, int, int]


def now_ms() -> int:
    return int(time.time() * 1000)


def loose_int(value, message: str) -> int:
    """The plugin's loose integer rule: any JSON number or numeric string that is an exact int32 (``5``, ``5.0``,
    ``"5"``, ``"5e0"``); booleans, fractions, objects and out-of-range values raise ``invalid_request`` with
    ``message``. Numbers are judged by their literal text when the parser kept it (``5.0000000000000000001`` is a
    fraction, as BigDecimal sees it, although the float is 5.0)."""
    if isinstance(value, bool) or value is None:
        raise invalid(message)
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        number = exact_int32(value)
    elif isinstance(value, float):
        number = exact_int32(getattr(value, "literal", None) or _float_text(value))
    else:
        number = None
    if number is None or not INT32_MIN <= number <= INT32_MAX:  # a JSON integer can be any size
        raise invalid(message)
    return number


def exact_int32(text: str) -> int | None:
    """The int32 that a decimal text is exactly, or None (a fraction, out of range, not a number).

    The verdict comes from the digit count and the exponent before anything is multiplied out, so ``"1e1000000"``
    costs as little as ``"1"``; the work is bounded by :data:`MAX_DECIMAL_TEXT`.
    """
    if len(text) > MAX_DECIMAL_TEXT:
        return None
    match = _DECIMAL.fullmatch(text)
    if match is None:
        return None
    sign, whole, fraction, exponent_sign, exponent_digits = match.groups()
    fraction = fraction or ""
    if not whole and not fraction:
        return None
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return 0  # 0, 0.000, 0e999999999 are all zero
    significant = digits.rstrip("0")
    scale = len(digits) - len(significant) - len(fraction)  # value = significant * 10**scale
    if exponent_digits is not None:
        exponent_digits = exponent_digits.lstrip("0") or "0"
        if len(exponent_digits) > 9:  # |exponent| >= 10**9 outweighs every digit a text this short can hold
            return None
        scale += -int(exponent_digits) if exponent_sign == "-" else int(exponent_digits)
    if scale < 0 or len(significant) + scale > 10:  # a fraction, or more digits than any int32 has
        return None
    number = int(significant) * 10**scale
    number = -number if sign == "-" else number
    return number if INT32_MIN <= number <= INT32_MAX else None


def _float_text(value: float) -> str:
    return repr(value) if value == value and value not in (float("inf"), float("-inf")) else "nan"


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
