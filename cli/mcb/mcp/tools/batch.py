"""``tool_batch``: several tool calls in one, each under the same rules as a single call (spec §2.3).

Every step is checked before any runs (its tool is known, visible and not ``tool_batch``; its arguments pass the
tool's schema), so one bad step refuses the whole batch and nothing runs. Then the steps run in order; the first
failure stops the batch unless ``stop_on_error`` is false. Nothing is made atomic: a finished step stays done.

How a step is found and checked belongs to the face that serves the batch (the MCP face applies its profile and
workspace root): it builds its batch with :func:`make_batch_action` and a :class:`StepRunner`. ``BATCH_ACTION``
uses :class:`CatalogSteps`, the registry's actions checked by their models. Core code: no typer/rich/mcp.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from mcb.mcp.actions import Action, Cancelled, Context, Hints, Outcome, Refusal
from mcb.mcp.arguments import written_files
from mcb.wording import plural

log = logging.getLogger("mcb.mcp")

MAX_STEPS = 32
RESULT_CAP_BYTES = 65_536  # MCP-39: the text item cap; oversized step results are replaced, never cut
NAME = "tool_batch"
# §2.2: the most conservative union of what a batch can call (it may write files and reach the live world).
HINTS = Hints(read_only=False, destructive=True, idempotent=False, open_world=True)


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tool: str = Field(min_length=1, max_length=64, description="The tool to call, as listed by tools/list.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Its arguments, as for a single call.")


class BatchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    steps: list[Step] = Field(min_length=1, max_length=MAX_STEPS, description="The calls, run in this order.")
    stop_on_error: bool = Field(True, description="Stop at the first failed step (false: carry on past failures).")


class StepRunner(Protocol):
    """What a batch needs from the face serving it."""

    cap_bytes: int

    def resolve(self, name: str) -> Action:
        """The visible action ``name``; Refusal when unknown, hidden or not callable."""
        ...

    def check(self, action: Action, arguments: dict[str, Any]) -> BaseModel:
        """The validated arguments of one step; Refusal (invalid_argument, path_denied, ...) otherwise."""
        ...


class CatalogSteps:
    """The registry's actions, arguments checked as a single call's are (no path root)."""

    cap_bytes = RESULT_CAP_BYTES

    def resolve(self, name: str) -> Action:
        from mcb.mcp.extensions import all_actions

        actions = {action.name: action for action in all_actions()}
        if name not in actions:
            raise unknown_tool(name, list(actions))
        return actions[name]

    def check(self, action: Action, arguments: dict[str, Any]) -> BaseModel:
        from mcb.mcp.arguments import parse_arguments

        return parse_arguments(action, arguments, root=None)  # the same check a single tools/call gets


def unknown_tool(name: str, known: list[str]) -> Refusal:
    import difflib

    match = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return Refusal(
        "invalid_argument",
        f"unknown tool {name!r}" + (f"; did you mean {match[0]!r}?" if match else ""),
        did_you_mean={name: match[0]} if match else None,
        remedy="name a tool that tools/list lists",
        data={"no_remedy": "no such tool"} if not match else None,
    )


class _StepContext:
    """One step's view of the batch's context: progress scaled into the step's unit, the batch's cancellation,
    and the files this step created (removed when the step fails or is cancelled; a finished step's stay)."""

    def __init__(self, parent: Context, index: int, total: int):
        self.parent, self.index, self.total = parent, index, total
        self.files: list[Path] = []

    def client(self) -> Any:
        return self.parent.client()

    def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        if total:
            fraction = min(max(done / total, 0.0), 1.0)
            self.parent.progress(self.index + 0.999 * fraction, self.total, message)

    def check_cancelled(self) -> None:
        self.parent.check_cancelled()

    def created(self, path: Path) -> None:
        self.files.append(Path(path))

    def remove_files(self) -> None:
        for path in reversed(self.files):
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError as error:
                log.warning("tool_batch: could not remove %s: %s", path, error)
        self.files.clear()


def _prefixed(refusal: Refusal, index: int, part: str) -> Refusal:
    """A step's check failure as the batch's own refusal, pointing into ``steps[index]``."""
    inner = refusal.data.get("pointer") or (f"/{refusal.field}" if refusal.field and part == "arguments" else "")
    data = {key: value for key, value in refusal.data.items() if key != "pointer"}
    data["pointer"] = f"/steps/{index}/{part}{inner}"
    data["step"] = index
    return Refusal(
        refusal.code,
        f"steps[{index}]: {refusal.message.rstrip('.')}; nothing ran",
        remedy=refusal.remedy,
        field=f"steps[{index}].{part}",
        did_you_mean=refusal.did_you_mean,
        data=data,
    )


def make_batch_action(runner: StepRunner) -> Action:
    def run(args: BatchArgs, ctx: Context) -> Outcome:
        planned = []
        for index, step in enumerate(args.steps):
            if step.tool == NAME:
                raise Refusal(
                    "invalid_argument",
                    f"steps[{index}]: a batch cannot contain tool_batch; nothing ran",
                    field=f"steps[{index}].tool",
                    remedy="list the inner batch's steps here instead",
                    data={"pointer": f"/steps/{index}/tool", "step": index},
                )
            try:
                action = runner.resolve(step.tool)
            except Refusal as refusal:
                if refusal.did_you_mean:  # what was given is the step's tool name, whatever the runner keyed it by
                    refusal.did_you_mean = {step.tool: next(iter(refusal.did_you_mean.values()))}
                raise _prefixed(refusal, index, "tool") from None
            try:
                planned.append((action, runner.check(action, step.arguments)))
            except Refusal as refusal:
                raise _prefixed(refusal, index, "arguments") from None
        return _run_steps(planned, args.stop_on_error, ctx, runner.cap_bytes)

    return Action(
        name=NAME,
        title="Run several tools",
        description=(
            "Run up to 32 tool calls in order: {steps: [{tool, arguments}], stop_on_error}. Every step is checked first "
            "(a bad step refuses the whole batch and nothing runs); each then runs as a full call of its own (the batch "
            "may take as long as their deadlines together), with no "
            "automatic repeat and nothing made atomic. By default the first failure stops the batch (status stopped); "
            "stop_on_error false carries on (status partial). Returns per-step results; step images follow in the "
            "content, results[i].images holding their content indexes. Next: the follow_up of the last step."
        ),
        input_model=BatchArgs,
        hints=HINTS,
        run=run,
        group="batch",
    )


def _run_steps(planned: list[tuple[Action, BaseModel]], stop_on_error: bool, ctx: Context, cap: int) -> Outcome:
    results: list[dict[str, Any]] = []
    images = []
    failed = 0
    stopped = False
    ctx.progress(0, len(planned), "starting")
    for index, (action, parsed) in enumerate(planned):
        ctx.check_cancelled()
        step_ctx = _StepContext(ctx, index, len(planned))
        entry: dict[str, Any] = {"index": index, "tool": action.name}
        for path in written_files(action, parsed):
            step_ctx.created(path)
        try:
            outcome = action.run(parsed, step_ctx)
        except Cancelled:
            step_ctx.remove_files()
            raise
        except Refusal as refusal:
            step_ctx.remove_files()
            entry.update(ok=False, error=refusal.to_dict()["error"])
        except Exception as error:
            step_ctx.remove_files()
            entry.update(ok=False, error=_step_error(action, error))
        else:
            entry.update(ok=True, result=outcome.data)
            if outcome.images:
                entry["images"] = [1 + len(images) + i for i in range(len(outcome.images))]  # content[0] is text
                images.extend(outcome.images)
        results.append(entry)
        ctx.progress(index + 1, len(planned), f"{index + 1:,} of {plural(len(planned), 'step')}")
        if not entry["ok"]:
            failed += 1
            if stop_on_error:
                stopped = index + 1 < len(planned)
                break
    status = "completed" if not failed else ("stopped" if stop_on_error else "partial")
    data: dict[str, Any] = {
        "status": status,
        "completed": len(results) - failed,
        "failed": failed,
        "steps": len(planned),
        "results": results,
    }
    if stopped:
        data["not_run"] = len(planned) - len(results)
    return Outcome(_within_cap(data, cap), images)


def _step_error(action: Action, error: Exception) -> dict[str, Any]:
    """A step that raised: mcb's own errors keep their message; anything else is a bug (MCP-44)."""
    from mcb.errors import McbError

    if isinstance(error, McbError):
        failure = Refusal(
            error.code,
            error.message,
            remedy=error.hint or "see the message",
            data={"no_remedy": error.hint or error.message},
        )
    else:
        log.exception("tool_batch step %s raised", action.name)
        failure = Refusal(
            "internal",
            f"{action.name} failed inside mcb ({type(error).__name__}); this is a bug in mcb",
            remedy="report it; the next call works",
        )
    return failure.to_dict()["error"]


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def _within_cap(data: dict[str, Any], cap: int) -> dict[str, Any]:
    """Once work has happened its outcome is reported (§2.3): the largest step results give way to
    ``{omitted_bytes}`` until the whole fits, keeping every counter and every step's ok/error."""
    if _size(data) <= cap:
        return data
    for entry in sorted((e for e in data["results"] if e.get("ok")), key=lambda e: -_size(e["result"])):
        entry["result"] = {"omitted_bytes": _size(entry["result"])}
        data["truncated"] = True
        if _size(data) <= cap:
            break
    return data


BATCH_ACTION: Action = make_batch_action(CatalogSteps())

__all__ = ["BATCH_ACTION", "BatchArgs", "CatalogSteps", "StepRunner", "make_batch_action", "unknown_tool"]
