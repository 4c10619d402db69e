"""The method table and the dispatcher (protocol §1.3 steps 7-9, §1.6, §3 "order of checks").

Handlers are plain functions ``handler(ctx: RequestContext, params: dict) -> dict`` registered by name. The method
modules add themselves with :func:`register_method` when :func:`load_method_modules` imports them at server start.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcb.server.errors import RpcError

if TYPE_CHECKING:
    from mcb.server.state import ServerState

UNSCOPED_CHAT = frozenset({"chat_poll", "chat_reply"})


@dataclass
class RequestContext:
    """What a handler gets besides its params.

    ``state`` is the :class:`~mcb.server.state.ServerState`; ``is_admin`` tells which token was used;
    ``player_id``/``project_id`` are the scope values that passed the check (``None`` for unscoped methods).
    """

    state: ServerState
    method: str
    is_admin: bool
    player_id: str | None = None
    project_id: str | None = None
    extras: dict = field(default_factory=dict)


@dataclass(frozen=True)
class MethodSpec:
    name: str
    handler: Callable[[RequestContext, dict], dict]
    admin_only: bool = False
    scoped: bool = True
    main_thread: bool = True
    admin_message: str = "Recovery requires explicit administrator capability"
    journal_latch: bool = False


_METHODS: dict[str, MethodSpec] = {}


def register_method(
    name: str,
    handler: Callable[[RequestContext, dict], dict],
    *,
    admin_only: bool = False,
    scoped: bool = True,
    main_thread: bool = True,
    admin_message: str | None = None,
    journal_latch: bool = False,
) -> None:
    """Add (or replace) an RPC method.

    Hops to the emulated Minecraft main thread (each waits for the next tick boundary; see
    :mod:`mcb.server.mainthread`): a scoped method's scope check is one, its ``main_thread`` work another, and a
    ``journal_latch`` method a third.

    - ``admin_only``: non-admin callers get 403 ``permission_denied`` (``admin_message``; ``chat_*`` names are
      refused for non-admins earlier anyway, with the chat message).
    - ``scoped``: run the §1.6 ``player_id``/``project_id`` check first, on the main thread (every method except
      chat_poll/chat_reply).
    - ``main_thread``: run the handler on the main thread, holding ``state.lock`` (20 s wait then ``timeout``).
      ``False``: it runs on the RPC thread, and one that touches the world takes its own hop with
      ``with ctx.state.main_thread():`` (build_prepare compiles its recipe first, as the plugin does). Pure
      functions that never touch the world or journal just pass ``False``.
    - ``journal_latch``: one of the plugin's prepare-like calls that write the journal and clear its latch in a
      third hop (build_prepare, build_apply, operation_undo_prepare, schematic_import_prepare, recovery_abandon).
      The work hop ends with ``state.latch_journal()`` (done here for a ``main_thread`` handler; a handler with its
      own hop calls it last thing in that hop) and a successful call then makes the third hop.
    """
    _METHODS[name] = MethodSpec(
        name,
        handler,
        admin_only,
        scoped,
        main_thread,
        admin_message or "Recovery requires explicit administrator capability",
        journal_latch,
    )


_CONTEXT_FIELDS: dict[str, Callable] = {}


def register_context_field(key: str, provider: Callable) -> None:
    """Let a module supply one ``project_context`` field, e.g. ``material_catalog`` (``provider(state) -> value``)."""
    _CONTEXT_FIELDS[key] = provider


def context_field_providers() -> dict[str, Callable]:
    return dict(_CONTEXT_FIELDS)


def registered_methods() -> dict[str, MethodSpec]:
    return dict(_METHODS)


def load_method_modules(*, test_hooks: bool = False) -> list[str]:
    """Import the method modules and call their ``register_methods()``; returns their names.

    Imported here rather than at the top because they import :mod:`mcb.server.api`, which imports this module. A
    module that fails to import fails the server's start: nothing of ours is optional.
    """
    from mcb.server import methods_core, methods_peripheral, terrain_rpc

    modules = [methods_core, methods_peripheral, terrain_rpc]
    if test_hooks:
        from mcb.server import hooks

        modules.append(hooks)
    for module in modules:
        module.register_methods()
    return [module.__name__ for module in modules]


def dispatch(state: ServerState, method: str, params: dict, *, is_admin: bool) -> dict:
    """Route one request after the HTTP layer has checked the token and parsed the envelope."""
    if method.startswith("chat_") and not is_admin:
        raise RpcError("permission_denied", "Chat routing requires the administrator capability")
    spec = _METHODS.get(method)
    hooks_enabled = state.config.test_hooks
    if spec is not None and spec.name.startswith("test_") and not hooks_enabled:
        spec = None
    ctx = RequestContext(state=state, method=method, is_admin=is_admin)
    if method in UNSCOPED_CHAT or (spec is not None and not spec.scoped):
        if spec is None:
            raise RpcError("unsupported_method", f"Method not implemented: {method}")
        if spec.admin_only and not is_admin:
            raise RpcError("permission_denied", spec.admin_message)
        return _run(state, spec, ctx, params)
    with state.main_thread():  # hop 1: the scope check
        ctx.player_id, ctx.project_id = state.check_scope(params)
        if spec is None:
            raise RpcError("unsupported_method", f"Method not implemented: {method}")
        if spec.admin_only and not is_admin:
            raise RpcError("permission_denied", spec.admin_message)
    return _run(state, spec, ctx, params)


def _run(state: ServerState, spec: MethodSpec, ctx: RequestContext, params: dict) -> dict:
    if spec.main_thread:
        with state.main_thread():  # hop 2: the work
            result = spec.handler(ctx, params)
            if spec.journal_latch:
                state.latch_journal()
    else:
        result = spec.handler(ctx, params)
    if spec.journal_latch:
        state.release_journal_latch()  # hop 3
    return result
