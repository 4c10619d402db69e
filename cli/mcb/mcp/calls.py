"""tools/call execution: worker threads, deadlines, cancellation, cleanup and the legacy repeat note
(MCP-34, MCP-44..51).

Mutating tools run one at a time in arrival order on one thread; read-only tools (and live resource reads) run
beside them on three more, so at most 4 calls run at once. Each call answers at most once: its result, its
refusal, or the deadline's `timeout` refusal; a cancelled call never answers and its created files are removed.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcb.mcp import framing, results
from mcb.mcp.actions import Action, Cancelled, Refusal
from mcb.mcp.arguments import parse_arguments, written_files
from mcb.mcp.context import CallContext
from mcb.mcp.framing import ProtocolError

if TYPE_CHECKING:
    from mcb.mcp.session import Session

log = logging.getLogger("mcb.mcp")

DEFAULT_DEADLINE_S = 30.0  # above the plugin's 20 s main-thread wait (MCP-51)
CAMERA_DEADLINE_S = 60.0
READ_DEADLINE_S = 35.0  # an RPC read may wait 15 s, be repeated once with a fresh 15 s, and still be answered
REPLY_MARGIN_S = 0.5  # the call's requests end this long (at most a tenth of it) before its deadline, so that
# their own refusal (busy, a transport deadline) goes out instead of the face's timeout


@dataclass
class _Call:
    request_id: Any
    context: CallContext
    started: float = 0.0  # time.monotonic() when the call began to run
    answered: bool = False  # a reply (or the deadline's refusal) went out; at most one per call
    # an offline tool's cancel that comes after it replaced a file is too late: the call answers (its output is its
    # work); an RPC tool's writes are its bookkeeping (a build's state file) and a batch's cancel stops it before
    # its next step, finished steps staying: those cancel whenever it comes
    answers_once_written: bool = True
    lock: threading.Lock = field(default_factory=threading.Lock)

    def claim_reply(self) -> bool:
        with self.lock:
            if self.answered:
                return False
            self.answered = True
            return True


class Calls:
    """The calls of one session."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._lock = threading.Lock()
        self._running: dict[str, _Call] = {}
        self._repeat: tuple[str, str, int] | None = None  # (call key, code, count), legacy era only (MCP-34)
        self._serial = ThreadPoolExecutor(1, thread_name_prefix="mcb-mcp-write")
        self._parallel = ThreadPoolExecutor(3, thread_name_prefix="mcb-mcp-read")

    def submit(self, action: Action, arguments: dict, request_id: Any, token: Any, modern: bool) -> None:
        session = self.session
        context = CallContext(
            progress_token=token,
            notify=session.send,
            make_client=session.make_client,
            max_result_bytes=session.options.max_result_bytes,
        )
        call = _Call(request_id, context, answers_once_written=action.group not in ("rpc", "batch"))
        key = json.dumps(request_id)
        with self._lock:
            self._running[key] = call
        pool = self._parallel if action.hints.read_only else self._serial
        pool.submit(self._run_call, key, call, action, arguments, modern)

    def background(self, function: Callable[..., None], *args: Any) -> None:
        """Read-only work that must not hold up the reader (a live resource read)."""
        self._parallel.submit(function, *args)

    def close(self) -> None:
        """Start no new work; wait for running calls so their replies are written (MCP-50)."""
        self._serial.shutdown(wait=True)
        self._parallel.shutdown(wait=True)

    def run_action(self, action: Action, arguments: dict, context: CallContext) -> dict:
        """The full pipeline of one call, for tools/call and for each tool_batch step: check, run, shape."""
        from mcb.errors import face_words
        from mcb.fileio import cancellable_writes
        from mcb.mcp.refusals import mcp_words

        parsed = parse_arguments(action, arguments, root=self.session.options.root)
        for path in written_files(action, parsed):
            context.created(path)
        # a cancel comes before any file is replaced, or after, never during (MCP-49); errors speak tool words
        with cancellable_writes(context.check_cancelled, context.renaming), face_words(mcp_words):
            outcome = action.run(parsed, context)
        if getattr(context, "repeats", 0):  # MCP-55: a read that succeeded after being sent again says so
            outcome.meta.setdefault("mcb/transport", {"repeats": context.repeats})
        return results.success(
            outcome, cap_bytes=self.session.options.max_result_bytes, arguments=arguments, tool=action.name
        )

    def deadline_for(self, action: Action, arguments: dict | None = None) -> float:
        if action.deadline_s is not None:
            return action.deadline_s
        if action.group == "batch":  # its steps run one after another, each under its own call's deadline
            steps = (arguments or {}).get("steps")
            if isinstance(steps, list):
                return max(DEFAULT_DEADLINE_S, sum(self._step_deadline(step) for step in steps))
        if action.name == "camera_capture":
            return CAMERA_DEADLINE_S
        if action.group == "rpc" and action.hints.read_only:
            return READ_DEADLINE_S
        return DEFAULT_DEADLINE_S

    def _step_deadline(self, step: Any) -> float:
        name = step.get("tool") if isinstance(step, dict) else None
        action = self.session.served.visible_names.get(name) if isinstance(name, str) else None
        return DEFAULT_DEADLINE_S if action is None or action.group == "batch" else self.deadline_for(action)

    def _deadline_passed(self, call: _Call, action: Action, arguments: dict, seconds: float, modern: bool) -> None:
        """The call ran out of time: refuse it now; the work stops at its next check and its answer is dropped."""
        if not call.claim_reply():
            return
        call.context.cancel()  # the work stops, and an HTTP exchange in flight ends, so the worker is free again
        log.warning("%s passed its %.0f s deadline; refused as timeout", action.name, seconds)
        waited = round((time.monotonic() - call.started) * 1000)
        if action.group == "rpc":
            refusal = self._rpc_deadline_refusal(call, action, arguments, waited)
        else:
            data: dict[str, Any] = {
                "deadline_ms": int(seconds * 1000),
                "outcome_unknown": not action.hints.read_only,
                "no_remedy": "the work does not fit one call's deadline: ask for less",
            }
            refusal = Refusal(
                "timeout",
                f"{action.name} did not finish within {seconds:.0f} s",
                data=data,
                remedy="ask for less work per call"
                if action.hints.read_only
                else "check what happened before doing it again",
            )
        self.session.reply(call.request_id, self.session.stamp(results.refusal(refusal), modern))

    @staticmethod
    def _rpc_deadline_refusal(call: _Call, action: Action, arguments: dict, waited_ms: int) -> Refusal:
        """MCP-52/54: the face's own deadline on an RPC tool is a transport deadline, mapped by the one mapping
        (refusals.transport_refusal): `transport`, `plugin`, and for build_apply the identical call as retry_with."""
        from mcb.client.errors import TransportError
        from mcb.mcp.refusals import transport_refusal

        error = TransportError(
            f"{action.name}: no answer before mcb's call deadline",
            method=action.name,
            request_started=True,
            reason="deadline",
            waited_ms=waited_ms,
        )
        return transport_refusal(error, action.name, dict(arguments), server=call.context.server)

    def _run_call(self, key: str, call: _Call, action: Action, arguments: dict, modern: bool) -> None:
        context = call.context
        result: dict | None = None
        failure: Refusal | None = None
        seconds = self.deadline_for(action, arguments)
        call.started = time.monotonic()
        context.deadline = call.started + seconds - min(REPLY_MARGIN_S, seconds / 10)
        timer = threading.Timer(seconds, self._deadline_passed, (call, action, arguments, seconds, modern))
        timer.daemon = True
        timer.start()
        try:
            context.check_cancelled()
            result = self.run_action(action, arguments, context)
        except Cancelled:
            pass
        except Refusal as refusal:
            failure = refusal
        except Exception as error:  # the action's adapter should have made a Refusal of it: a bug in mcb
            log.exception("tool %s raised", action.name)
            failure = results.internal(action.name, error)
        finally:
            timer.cancel()
            context.close()
            with self._lock:
                self._running.pop(key, None)
        if context.cancelled.is_set() or (result is None and failure is None) or not call.claim_reply():
            removed = context.remove_created()
            if action.hints.open_world and not action.hints.read_only:  # MCP-48: a write to the server stopped waiting
                log.warning("call %s (%s) cancelled: it stopped waiting; an operation it started goes on to its end "
                            "on the server (operation_cancel stops it); removed %d created file(s)",
                            key, action.name, len(removed))  # fmt: skip
            else:
                log.info("call %s (%s) cancelled; removed %d created file(s)", key, action.name, len(removed))
            return
        if failure is not None:
            context.remove_created()
            result = results.refusal(failure, repeated=self._note_repeat(action, arguments, failure, modern))
        else:
            self._note_repeat(action, arguments, None, modern)
        self.session.reply(call.request_id, self.session.stamp(result, modern))

    def _note_repeat(self, action: Action, arguments: dict, failure: Refusal | None, modern: bool) -> dict | None:
        if modern:
            return None
        call_key = action.name + json.dumps(arguments, sort_keys=True, default=str)
        with self._lock:
            if failure is None:
                self._repeat = None
                return None
            if self._repeat and self._repeat[:2] == (call_key, failure.code):
                count = self._repeat[2] + 1
            else:
                count = 1
            self._repeat = (call_key, failure.code, count)
        if count < 2:
            return None
        follow = results.follow_field(failure)
        return {
            "count": count,
            "follow": follow,
            "note": f"the same call failed the same way {count} times in a row; act on {follow} instead of "
            "repeating it unchanged",
        }

    def cancel(self, request_id: Any) -> None:
        """notifications/cancelled: the call stops at its next check; unknown or finished ids are ignored."""
        if not framing.legal_id(request_id):
            return
        with self._lock:
            call = self._running.get(json.dumps(request_id))
        if call is None:
            return
        with call.lock:  # a cancelled call is never answered, not even by its deadline (MCP-47)
            if call.answered:
                return
            if not call.answers_once_written:
                call.context.cancel()
            elif not call.context.cancel_unless_replaced():
                log.info("cancel for call %s came after it replaced a file: it answers", request_id)
                return
            call.answered = True
        log.info("cancel requested for call %s", request_id)


class SessionSteps:
    """tool_batch's StepRunner: a step's tool is resolved and checked exactly as a tools/call would be."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.cap_bytes = session.options.max_result_bytes

    def resolve(self, name: str) -> Action:
        try:
            return self.session.resolve_tool(name)
        except ProtocolError as error:
            data = dict(error.data or {})
            suggestion = data.pop("did_you_mean", None)
            data.pop("name", None)
            if not suggestion and not any(key in data for key in results.REMEDY_FIELDS):
                data["no_remedy"] = "no such tool"
            raise Refusal(
                "invalid_argument",
                error.message,
                remedy="name a tool that tools/list lists",
                did_you_mean=suggestion,
                data=data,
            ) from None

    def check(self, action: Action, arguments: dict[str, Any]):
        return parse_arguments(action, arguments, root=self.session.options.root)
