"""Reading HTTP/1.1 requests from an asyncio stream, within limits (for :mod:`mcb.server.http`).

Every limit is counted before the bytes are kept: a line's length (64 KiB, as the stdlib's ``http.server``), the
number of header lines and their total size, a Content-Length that must be plain digits, the number of chunks. A
request that breaks one raises :class:`Refused` with the status to answer; the deadlines are the caller's.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

MAX_DISCARD = 16 * 1_048_576  # unwanted bodies up to this size are read and dropped so the client sees the reply
MAX_LINE = 65_536  # the request line and each header line, as the stdlib's http.server
MAX_HEADERS = 100
MAX_HEAD = 256 * 1024  # all header lines together (100 lines of 64 KiB would be 6.4 MB)
MAX_CHUNKS = 16_384  # chunks in one body: 1 MiB sent a byte per chunk would cost the loop ~a million reads
VERBS = frozenset({"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"})


class Refused(Exception):
    """A request the transport answers itself with ``status`` and then closes the connection (malformed, too big)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Request:
    verb: str
    target: str
    version: str
    headers: dict[str, str]  # lower-case name -> first value (later duplicates are ignored, as http.client's get)
    request_line: str  # for the log: verb, path without the query, version

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]

    @property
    def chunked(self) -> bool:
        return "chunked" in self.headers.get("transfer-encoding", "").lower()

    @property
    def keep_alive(self) -> bool:
        connection = self.headers.get("connection", "").lower()
        if self.version == "HTTP/1.0":
            return connection == "keep-alive"
        return connection != "close"


async def _read_line(reader: asyncio.StreamReader, status: int, message: str) -> bytes:
    try:
        return await reader.readuntil(b"\n")
    except asyncio.LimitOverrunError:
        raise Refused(status, message) from None
    except asyncio.IncompleteReadError as error:
        return error.partial


async def read_head(reader: asyncio.StreamReader) -> Request | None:
    """The request line and headers; None when the client closed instead."""
    for _ in range(4):  # a stray blank line or two before a request is tolerated (RFC 9112 section 2.2)
        raw = await _read_line(reader, 414, "Request-URI Too Long")
        if raw not in (b"\r\n", b"\n"):
            break
    words = raw.decode("iso-8859-1").split()
    if not words:
        return None
    if len(words) != 3 or not words[2].startswith("HTTP/"):
        raise Refused(400, "Bad request syntax")  # not echoed: a request line can carry a token in its query
    verb, target, version = words
    if version not in ("HTTP/1.0", "HTTP/1.1"):
        raise Refused(
            505 if version[5:6].isdigit() and version[5:6] >= "2" else 400, f"Bad request version ({version[:20]!r})"
        )
    headers: dict[str, str] = {}
    last, size = None, 0
    for count in range(MAX_HEADERS + 1):
        line = await _read_line(reader, 431, "Line too long")
        if line in (b"\r\n", b"\n", b""):
            break
        if count == MAX_HEADERS:
            raise Refused(431, "Too many headers")
        size += len(line)
        if size > MAX_HEAD:
            raise Refused(431, "Request header fields too large")
        text = line.decode("iso-8859-1").rstrip("\r\n")
        if text[:1] in (" ", "\t") and last is not None:  # an obsolete folded continuation
            headers[last] += " " + text.strip()
            continue
        name, colon, value = text.partition(":")
        if not colon or not name or name != name.strip():
            raise Refused(400, "Malformed header line")
        last = name.lower()
        if last == "content-length" and headers.get(last, value.strip()) != value.strip():
            raise Refused(400, "Conflicting Content-Length headers")  # which body would the next request be?
        headers.setdefault(last, value.strip())
    if verb not in VERBS:
        raise Refused(501, f"Unsupported method ({verb[:20]!r})")
    # what a verbose server logs: the path without its query (which may hold a secret)
    request = Request(verb, target, version, headers, f"{verb[:20]} {target.split('?', 1)[0][:200]} {version}")
    content_length(request)  # refuse a lying or unreadable Content-Length before anything is read
    return request


def content_length(request: Request) -> int:
    if request.chunked:
        return 0
    text = request.headers.get("content-length")
    if text is None:
        return 0
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise Refused(400, "Invalid Content-Length")
    return int(text)


async def read_body(reader, request: Request, limit: int) -> bytes | None:
    """The whole body, or None when it exceeds ``limit`` (a sized body is then left unread)."""
    if request.chunked:
        return await _read_chunked(reader, limit, keep=True)
    length = content_length(request)
    if length > limit:
        return None
    return await reader.readexactly(length) if length else b""


async def _read_chunked(reader, limit: int, *, keep: bool) -> bytes | None:
    parts, total = [], 0
    for _ in range(MAX_CHUNKS):
        line = await _read_line(reader, 400, "Chunk size line too long")
        size_text = line.split(b";", 1)[0].strip()
        if not size_text or len(size_text) > 16:
            raise Refused(400, "Malformed chunk size")
        try:
            size = int(size_text, 16)
        except ValueError:
            raise Refused(400, "Malformed chunk size") from None
        if size == 0:
            for _ in range(MAX_HEADERS + 1):  # trailers, up to the blank line
                if await _read_line(reader, 400, "Trailer line too long") in (b"\r\n", b"\n", b""):
                    return b"".join(parts)
            raise Refused(400, "Too many trailers")
        total += size
        if total > limit:
            return None
        chunk = await reader.readexactly(size)
        if keep:
            parts.append(chunk)
        await _read_line(reader, 400, "Malformed chunk")
    raise Refused(400, f"More than {MAX_CHUNKS} chunks in one body")


async def drain(reader, request: Request) -> bool:
    """Read and drop an unwanted body so the connection stays usable; False (close it) beyond 16 MiB."""
    if request.chunked:
        return await _read_chunked(reader, MAX_DISCARD, keep=False) is not None
    length = content_length(request)
    if length > MAX_DISCARD:
        return False
    while length > 0:
        chunk = await reader.read(min(length, 65536))
        if not chunk:
            return False
        length -= len(chunk)
    return True
