"""Failures toward the Minecraft server as refusals (mcp-conventions §2.4, §1.7), read from the one table.

:func:`refusal_for` turns any :class:`mcb.errors.McbError` the RPC client raises into one
:class:`~mcb.mcp.actions.Refusal`: a plugin error keeps its code (refined where the plugin folds it into
``invalid_request``) with ``plugin_code`` and ``http_status``, and gets its remedy from :mod:`mcb.refusals`, the
table the CLI reads too; a transport failure becomes ``timeout`` / ``unavailable`` with ``transport: {request_started,
outcome_unknown, timed_out, reason, waited_ms}`` and a ``plugin`` liveness probe (MCP-52, MCP-53).

Repeats are the client's job (mcb.client.retry). Nothing here sends a request except the 2 s ``GET /health``
probe after a transport failure.
"""

from __future__ import annotations

import re
from typing import Any

from mcb.errors import fill, model_words, render
from mcb.mcp.actions import Refusal
from mcb.refusals import (
    CAMERA_WORKER_CODES,
    NOT_REACHED,
    READ_ONLY_METHODS,
    Remedy,
    all_codes,
    explain,
    plain_positions,
    position_in,
    unknown_outcome,
)

# The machine remedy fields of a refusal's data (MCP-32), in the order a repeated refusal names one to follow.
REMEDY_FIELDS = ("retry_with", "field", "next_call", "restart_with", "retry_after_ms", "no_remedy")
_MACHINE_REMEDIES = frozenset({"next_call", "restart_with", "retry_after_ms", "no_remedy"})
# The bridge's answer limits (MCP-57, protocol §8): larger answers are refused response_too_large unread.
BRIDGE_RESPONSE_BYTES = 2 * 1024 * 1024
BRIDGE_CAMERA_RESPONSE_BYTES = 12 * 1024 * 1024


def bridge_response_limit(method: str) -> int:
    return BRIDGE_CAMERA_RESPONSE_BYTES if method == "camera_capture" else BRIDGE_RESPONSE_BYTES


# The CLI's global options mcb mcp reads from its environment instead (it has no command line per call).
MCP_SETTINGS = {"server": "MCB_SERVER", "profile": "MCB_PROFILE"}


def mcp_words(name: str, value: str | None) -> str:
    """This face's words for a template's names (mcb.errors): a tool or an argument by its own name
    (``project_context``, ``drop_extras``, ``output=FILE``), a global setting by its environment variable."""
    if value is None and name in MCP_SETTINGS:
        return MCP_SETTINGS[name]
    return model_words(name, value)


def remedy_text(remedy: Remedy, values: dict[str, str] | None = None) -> str:
    """The table's sentence as this face says it: what happened (when the table has words), then the next step."""
    values = dict(values or {})
    hint = render(fill(remedy.hint, values), mcp_words)
    return f"{fill(remedy.words, values)}; {hint}" if remedy.words else hint


def remedy_fields(
    remedy: Remedy, arguments: dict[str, Any] | None = None, values: dict[str, str] | None = None
) -> dict[str, Any]:
    """The machine remedy fields of ``remedy`` (MCP-32): next_call, retry_with, restart_with, retry_after_ms,
    no_remedy (field is the refusal's own)."""
    arguments = arguments or {}
    data: dict[str, Any] = {}
    if remedy.next_call:
        reason = render(fill(remedy.hint, dict(values or {})), mcp_words)
        call: dict[str, Any] = {"tool": remedy.next_call, "reason": reason}
        given = {target: arguments[source] for target, source in remedy.next_arguments if source in arguments}
        if given:
            call["arguments"] = given
        data["next_call"] = call
    for key in ("retry_with", "restart_with", "retry_after_ms", "no_remedy"):
        value = getattr(remedy, key)
        if value is not None:
            data[key] = value
    return data


def refusal_codes() -> dict[str, dict[str, str]]:
    """``{"remedied": {code: remedy}, "without_remedy": {code: reason}}`` for ``--dump-manifest`` (MCP-33)."""
    remedied: dict[str, str] = {}
    without: dict[str, str] = {}
    for code, remedy in all_codes().items():
        if remedy.no_remedy is not None:
            without[code] = remedy.no_remedy
        else:
            remedied[code] = remedy_text(remedy)
    return {"remedied": remedied, "without_remedy": without}


def refusal_for(error: Exception, method: str, arguments: dict | None = None, *, server: str | None = None) -> Refusal:
    """The one refusal for an error met while calling ``method`` with ``arguments`` (already validated)."""
    from mcb.client.errors import TransportError
    from mcb.errors import AuthError, ConfigError, McbError

    arguments = dict(arguments or {})
    if isinstance(error, TransportError):
        return transport_refusal(error, method, arguments, server=server)
    if not isinstance(error, McbError):
        raise error
    details = error.details or {}
    if "server_message" in details:  # the plugin's own error envelope (mcb.client.errors.error_from_envelope)
        return _plugin_refusal(details.get("method") or method, error.code, details["server_message"], arguments)
    if isinstance(error, AuthError) and error.code == "no_token":
        return _refusal("no_token", "mcb mcp has no agent token for the Minecraft server", explain("", "no_token", ""))
    if isinstance(error, ConfigError):  # the error's own hint (e.g. the near key) comes first
        known = explain("", "config", "")
        text = f"{error.hint}; {remedy_text(known.remedy)}" if error.hint else None
        return _refusal("config", error.message, known, text=text)
    if error.code not in all_codes():  # a code nobody foresaw: its own hint says what to do
        return Refusal(
            error.code,
            error.message,
            remedy=error.hint or "see the message",
            data={"no_remedy": error.hint or error.message},
        )
    known = explain(method, error.code, error.message)
    operation = str(details.get("operation_id", ""))
    if _UUID.fullmatch(operation):  # the operation the refusal is about (mcb's own record names it)
        return _refusal(error.code, error.message, known,
                        text=remedy_text(known.remedy, known.values).replace("OPERATION_ID", operation))  # fmt: skip
    return _refusal(error.code, error.message, known)


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def default_refusal(
    code: str, message: str, *, extra: dict | None = None, field: str | None = None, retry_with: dict | None = None
) -> Refusal:
    """A refusal with the table's remedy for ``code``; ``field``/``retry_with`` when the site knows them."""
    known = explain("", code, message)
    return _refusal(code, message, known, extra=extra, field_name=field, retry_with=retry_with)


def _refusal(
    code: str,
    message: str,
    known,
    *,
    arguments: dict | None = None,
    extra: dict | None = None,
    field_name: str | None = None,
    did_you_mean: dict[str, str] | None = None,
    retry_with: dict | None = None,
    text: str | None = None,
    remedy: Remedy | None = None,
) -> Refusal:
    remedy = remedy or known.remedy
    fields = {**remedy_fields(remedy, arguments, known.values), **(extra or {})}
    retry_with = retry_with if retry_with is not None else fields.pop("retry_with", None)
    fields.pop("retry_with", None)
    field_name = field_name if field_name is not None else remedy.field
    sentence = text or remedy_text(remedy, known.values)
    if field_name is not None or retry_with:
        fields.pop("no_remedy", None)  # naming the argument at fault, or a narrowing retry, is a remedy
    elif not _MACHINE_REMEDIES & set(fields):
        fields["no_remedy"] = sentence  # MCP-32: every refusal carries one; a code nobody foresaw says why not
    return Refusal(
        code, message, remedy=sentence, field=field_name, did_you_mean=did_you_mean, retry_with=retry_with, data=fields
    )


def _plugin_refusal(method: str, plugin_code: str, message: str, arguments: dict) -> Refusal:
    known = explain(method, plugin_code, message)
    remedy = known.remedy
    extra: dict[str, Any] = {
        "plugin_code": plugin_code,
        "http_status": 403 if plugin_code == "permission_denied" else 400,
    }
    position = position_in(message)
    if position is not None:
        extra["position"] = position
    if "limit" in known.values:  # the server's own number ("Read at most 4096 blocks")
        extra["limit"] = int(known.values["limit"])
    field_name = remedy.field if remedy.field in arguments else None
    did_you_mean = None
    if known.code in {"invalid_material", "unsupported_block"}:
        field_name = {"material_describe": "id"}.get(method, "recipe" if "recipe" in arguments else None)
        if method == "material_describe" and isinstance(arguments.get("id"), str):
            found = _block_suggestions(arguments["id"])
            did_you_mean = {arguments["id"]: found[0]} if found else None
    elif known.code == "timeout" and method not in READ_ONLY_METHODS:
        extra["outcome_unknown"] = True  # the main-thread task may still run (MCP-54)
        remedy = unknown_outcome(method, arguments)
    elif field_name is None and known.code in {"invalid_request", "invalid_material_query", "budget_exceeded"}:
        field_name = _trailing_key(message, arguments)
        if (
            field_name is None
            and known.code == "invalid_request"
            and remedy.no_remedy is None
            and remedy.next_call is None
        ):
            extra["no_remedy"] = f"the server refused the call: {plain_positions(message)}"
    return _refusal(
        known.code,
        plain_positions(message),
        known,
        arguments=arguments,
        extra=extra,
        field_name=field_name,
        did_you_mean=did_you_mean,
        remedy=remedy,
    )


def _trailing_key(message: str, arguments: dict) -> str | None:
    """The argument a message ends with ("Integer coordinate required: x" → x), when the call has it."""
    key = message.rpartition(":")[2].strip()
    return key if message.count(":") and key in arguments else None


def _block_suggestions(material_id: str) -> list[str] | None:
    try:
        from mcb.blocks.registry import load_registry

        return load_registry().suggest(material_id) or None
    except Exception:  # suggestions are a courtesy; a registry problem must not hide the server's refusal
        return None


# -- transport failures (MCP-52..55) ---------------------------------------------------------------------------


def probe_plugin(server: str | None) -> dict[str, str]:
    """MCP-53: ``GET /health`` with a 2 s budget → ``{plugin: alive|gone|unknown, plugin_reason}``."""
    if not server:
        return {"plugin": "unknown", "plugin_reason": "no server URL"}
    from mcb.client import McbClient
    from mcb.client.errors import TransportError
    from mcb.errors import McbError

    try:
        with McbClient(server, timeout=2.0) as probe:
            health = probe.health()
    except TransportError as error:
        if not error.request_started and not error.timed_out:
            return {"plugin": "gone", "plugin_reason": "connection refused"}
        reason = {"deadline": "no answer within 2 s" if error.request_started else "connect timed out"}
        return {"plugin": "unknown", "plugin_reason": reason.get(error.reason, error.reason)}
    except McbError as error:
        return {"plugin": "unknown", "plugin_reason": error.code}
    if health.status == "ready":
        return {"plugin": "alive", "plugin_reason": "GET /health answered ready"}
    return {"plugin": "unknown", "plugin_reason": f"GET /health answered status {health.status!r}"}


def transport_refusal(error, method: str, arguments: dict, *, server: str | None = None) -> Refusal:
    """A TransportError (or the face's own deadline, shaped as one) as ``timeout`` / ``unavailable``."""
    facts = error.fields()
    code = "timeout" if facts["reason"] == "deadline" else "unavailable"
    plugin = probe_plugin(server)
    extra: dict[str, Any] = {"transport": facts, **plugin}
    if facts["outcome_unknown"] and method not in READ_ONLY_METHODS:
        extra["outcome_unknown"] = True
        remedy = unknown_outcome(method, arguments)
    elif method == "camera_capture" and facts["outcome_unknown"]:
        remedy = unknown_outcome(method, arguments)
    elif plugin["plugin"] == "gone":  # nothing listens (a read, or nothing sent): the CLI's words, and restart_with
        remedy = NOT_REACHED
    else:
        remedy = Remedy("nothing changed on the server; send the same call again in a moment", retry_after_ms=1000)
    what = "no answer in time" if code == "timeout" else "no complete answer"
    if not facts["request_started"]:
        what = "could not reach the server"
    said = {"alive": "the plugin answers its health check", "gone": "nothing is listening there"}
    message = (
        f"{method}: {what} ({facts['reason']}); "
        + said.get(plugin["plugin"], "the plugin's state is unknown")
        + f" ({plugin['plugin_reason']})"
    )
    return _refusal(code, message, explain(method, code, ""), arguments=arguments, extra=extra, remedy=remedy)


__all__ = [
    "BRIDGE_RESPONSE_BYTES",
    "CAMERA_WORKER_CODES",
    "REMEDY_FIELDS",
    "bridge_response_limit",
    "default_refusal",
    "probe_plugin",
    "refusal_codes",
    "refusal_for",
    "remedy_text",
    "transport_refusal",
]
