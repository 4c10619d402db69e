"""The in-memory chat queue (protocol §3.14): filled by in-game ``/ai <text>`` and ``/ai stop`` (here: the
``test_chat_enqueue`` and ``test_pause_writes`` hooks), drained by ``chat_poll``/``chat_reply`` (peripheral module).

Fields the chat methods use: ``messages`` (list of message dicts in queue order, each with ``id``, ``playerId``,
``projectId``, ``text``, ``type``, ``playerPosition``, ``worldId`` and optional ``lookTarget``), ``leased`` (set of
ids handed out), ``client_id`` (last poller's id or None), ``last_poll_ms`` (0 = never polled). Hold ``lock`` (or the
server lock) while touching them.
"""

from __future__ import annotations

import threading
import uuid

MAX_QUEUED = 32
MAX_PROMPT_CHARS = 4000


class ChatQueue:
    def __init__(self):
        self.lock = threading.RLock()
        self.messages: list[dict] = []
        self.leased: set[str] = set()
        self.client_id: str | None = None
        self.last_poll_ms: int = 0

    def enqueue(
        self,
        *,
        player_id: str,
        project_id: str,
        world_id: str,
        text: str = "",
        kind: str = "prompt",
        player_position: dict | None = None,
        look_target: dict | None = None,
    ) -> dict:
        """Queue a prompt (at most 4000 characters, 32 queued) or a cancel message; returns the message."""
        if kind not in ("prompt", "cancel"):
            raise ValueError("kind must be prompt or cancel")
        if kind == "prompt" and not 0 < len(text) <= MAX_PROMPT_CHARS:
            raise ValueError("prompt text must be 1..4000 characters")
        with self.lock:
            if len(self.messages) >= MAX_QUEUED:
                raise ValueError("chat queue is full (32 messages)")
            message = {
                "id": str(uuid.uuid4()),
                "playerId": player_id,
                "projectId": project_id,
                "text": text if kind == "prompt" else "",
                "type": kind,
                "playerPosition": player_position or {"x": 0, "y": 64, "z": 0, "yaw": 0.0, "pitch": 0.0},
                "worldId": world_id,
            }
            if look_target is not None:
                message["lookTarget"] = look_target
            self.messages.append(message)
            return message

    def drop_unleased(self) -> int:
        with self.lock:
            before = len(self.messages)
            self.messages = [m for m in self.messages if m["id"] in self.leased]
            return before - len(self.messages)
