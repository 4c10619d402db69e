"""What a write on the engine tells a person as it goes, in the CLI's words: one line per engine event (re-reads,
resumed and settled operations, undos the plugin refused), the routine steps at -v; `mcb batch` prefixes each with
its step."""

from __future__ import annotations

from mcb.wording import plural


def write_events(term, command: str = "the same command"):
    """What a write on the engine tells a person as it goes (stderr): re-reads, resumed operations, an interrupted
    operation settled, undos the plugin refused; the routine steps at -v."""

    def on_event(event: str, details: dict) -> None:
        line = event_line(event, details, command)
        if line is None:
            return
        level, text = line
        getattr(term, level)(text)

    return on_event


def event_line(event: str, details: dict, command: str = "the same command") -> tuple[str, str] | None:
    """(terminal level, words) of one engine event, or None for events a person need not see."""
    op = details.get("operation_id")
    if event == "replan":
        return "warn", f"re-reading near {details['tile']} ({details['why']})"
    if event == "resend":
        return "info", (
            f"an earlier run sent plan {details['plan_id']} without seeing the end; repeating build_apply with the "
            f"same idempotency key {details['idempotency_key']} instead of preparing again"
        )
    if event == "resume":
        return "info", f"an earlier run left operation {op} in flight: waiting for it first"
    if event == "recovery" and details.get("settled"):
        return "info", (
            f"operation {op} had finished writing when a server restart interrupted it "
            f"({plural(details['positions'], 'position')}, all still as it wrote them): it is settled, nothing to "
            "abandon; the administrator token closes its record, the world stays as it is"
        )
    if event == "recovery":
        found = (
            f"of {plural(details['positions'], 'position')} it may have written, {details['matchesAfter']:,} as it "
            f"wrote them, {details['matchesBefore']:,} as before, {details['foreignStates']:,} changed by someone else"
        )
        return "warn", (
            f"operation {op} was interrupted by a server restart ({found}); abandoning it with the administrator "
            "token: the world stays as it is and this run reads it afresh"
        )
    if event == "abandoned" and details.get("settled"):
        return (
            "info",
            f"operation {op} closed, its writes kept (it can no longer be undone by the plugin; mcb restores it)",
        )
    if event == "abandoned":
        return "info", f"operation {op} abandoned (it can no longer be undone by the plugin; mcb restores it)"
    if event == "restore":
        return "warn", f"the plugin cannot undo operation {op} ({details['why']}): restoring what mcb recorded instead"
    if event == "not_recorded":
        return "warn", f"operation {op}: mcb recorded nothing of what it wrote (an older mcb built it); it stays"
    if event == "cancel":
        return "warn", f"cancelling operation {op}"
    if event in ("prepared", "finished", "started", "expired"):
        return "debug", describe_event(event, details)
    return None


# An operation that ended `failed` for a reason the run mends (mcb.batch.sources.prepare_again), in its words.
FAILED_WORDS = {
    "abandoned": ("abandoned by an administrator after a server restart", "; the world keeps them"),
    "plan_expired": ("expired before it was written", ""),
}

_TEMPLATES = {
    "start": "{kind}",
    "skip": "already done ({reason}), skipped",
    "prepared": "plan {plan_id} ({blocks} to change)",
    "expired": "plan {plan_id} expired before it was applied; preparing again",
    "applying": "applying with idempotency key {idempotency_key}",
    "started": "operation {operation_id}",
    "finished": "{status} ({progress})",
    "nothing": "nothing to change",
    "error": "error: {message}",
}


def describe_event(event: str, details: dict) -> str:
    """One progress line (after the ``[i/n] step:`` prefix) for a runner event."""
    if event == "start":
        return details["kind"] + (f": {details['description']}" if details.get("description") else "")
    from mcb.refusals import failure_reason
    from mcb.wording import plural, positions_written

    if event == "finished":
        details = {
            **details,
            "progress": positions_written(details.get("written"), details.get("total"), details.get("processed")),
        }
        if details.get("status") == "applied" and details.get("written") == 0:
            details["status"] = "nothing to change"
        why = failure_reason(details.get("status", ""), details.get("message") or "")
        if why in FAILED_WORDS:  # not the work failing: an administrator did it, or time ran out; the run goes on
            details["status"], after = FAILED_WORDS[why]
            details["progress"] += after
    elif event == "skip":
        details = {**details, "reason": str(details.get("reason")).replace("_", " ")}
    elif event == "prepared":
        details = {**details, "blocks": plural(details["changed_blocks"], "block")}
    elif event == "nothing" and details.get("plan_id"):
        return f"nothing to change (every block of plan {details['plan_id']} is in place already; not applied)"
    return _TEMPLATES.get(event, event).format(**details)
