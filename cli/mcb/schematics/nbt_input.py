"""The input side of the NBT reader: a buffer inflated lazily from gzip (or raw bytes), with every read checked
against what can still arrive under the inflated-size cap (a decompression bomb is refused after a few kilobytes).

:class:`Input` is the base of :class:`mcb.schematics.nbt_walker.Walker`; both are private to :mod:`mcb.schematics.nbt`,
which re-exports :class:`NbtError`, the one error every part of the reader raises.
"""

from __future__ import annotations

import struct
import zlib

from mcb.errors import InputError

_INT = struct.Struct(">i")
TRUNCATED_HINT = "the file ends early: it was cut short while being saved, copied or downloaded; get it again"


class NbtError(InputError):
    """Malformed or hostile NBT; ``rule`` is a stable diagnostic id, ``pointer`` the NBT path where it happened."""

    kind = "invalid_nbt"

    def __init__(self, message: str, *, rule: str, pointer: str | None = None, hint: str | None = None):
        super().__init__(message, hint=hint, code=rule)
        self.rule = rule
        self.pointer = pointer


class Input:
    """``buf[pos:]`` is what is read next; ``base`` is the input offset of ``buf[0]``."""

    def __init__(self, data: bytes, compressed: bool, limits, stats):
        self.limits, self.stats = limits, stats
        self.path: list = []
        self.inflater = zlib.decompressobj(wbits=31) if compressed else None
        self.pending = data if compressed else b""  # compressed bytes not yet given to zlib
        self.inflated = 0 if compressed else len(data)
        self.buf = b"" if compressed else data
        self.base = 0  # input offset of buf[0]
        self.pos = 0
        self.mark: int | None = None  # input offset from which refills keep the bytes (a RAW container's start)

    def fail(self, message: str, rule: str, hint: str | None = None) -> NbtError:
        return NbtError(message, rule=rule, pointer="/" + "/".join(map(str, self.path)), hint=hint)

    def room(self) -> int:
        """How many more bytes can still arrive after the current position."""
        if self.inflater is None:
            return len(self.buf) - self.pos
        return self.limits.max_inflated - (self.base + self.pos)

    def check_room(self, n: int, what: str) -> None:
        if n <= self.room():
            return
        if self.inflater is None:
            raise self.fail(
                f"{what} does not fit in the remaining input",
                "nbt.length.overflow",
                hint="the file is truncated or corrupt: get it again",
            )
        raise self.fail(
            f"{what} goes beyond the {self.limits.max_inflated:,} byte inflated-size limit",
            "nbt.limit.inflated",
            hint="the file is corrupt or a decompression bomb",
        )

    def inflate(self, want: int) -> bytes:
        """The next inflated bytes, ``b""`` at the end of the gzip member."""
        inflater = self.inflater
        if inflater is None or inflater.eof:
            return b""
        cap = self.limits.max_inflated
        try:
            chunk = inflater.decompress(self.pending, max(1, min(want, cap - self.inflated + 1)))
        except zlib.error as error:
            raise self.fail(f"gzip data is corrupt ({error})", "gzip.corrupt") from None
        self.pending = inflater.unconsumed_tail
        self.inflated += len(chunk)
        if self.inflated > cap:
            raise self.fail(
                f"inflated data exceeds the {cap:,} byte limit",
                "nbt.limit.inflated",
                hint="the file is corrupt or a decompression bomb",
            )
        if not chunk and not inflater.eof and not self.pending:
            raise self.fail("gzip stream is truncated", "gzip.truncated", TRUNCATED_HINT)
        return chunk

    def need(self, n: int) -> None:
        """Make ``buf[pos:pos + n]`` available."""
        if self.pos + n <= len(self.buf):
            return
        if self.inflater is None:
            raise self.fail("NBT data is truncated", "nbt.truncated", TRUNCATED_HINT)
        self.check_room(n, f"a value of {n:,} bytes")
        start = self.pos if self.mark is None else self.mark - self.base
        parts = [self.buf[start:]]
        have = len(parts[0])
        n += self.pos - start
        while have < n:
            chunk = self.inflate(max(n - have, self.limits.inflate_step))
            if not chunk:
                raise self.fail("NBT data is truncated (gzip stream ended early)", "nbt.truncated", TRUNCATED_HINT)
            parts.append(chunk)
            have += len(chunk)
        self.base += start
        self.buf, self.pos = b"".join(parts), self.pos - start

    def fill(self, n: int) -> int:
        """Make up to ``n`` bytes from the current position available, as :meth:`need` does, and return how many
        are: fewer only where the input ends, or where the inflated-size cap would."""
        have = len(self.buf) - self.pos
        if have >= n or self.inflater is None:
            return min(n, have)
        n = min(n, max(self.room(), 0))
        start = self.pos if self.mark is None else self.mark - self.base
        parts = [self.buf[start:]]
        got = have
        while got < n:
            chunk = self.inflate(max(n - got, self.limits.inflate_step))
            if not chunk:
                break
            parts.append(chunk)
            got += len(chunk)
        self.base += start
        self.buf, self.pos = b"".join(parts), self.pos - start
        return min(n, got)

    def take(self, n: int) -> bytes:
        self.need(n)
        start = self.pos
        self.pos = start + n
        return self.buf[start : self.pos]

    def skip(self, n: int, parts: list | None = None) -> None:
        """Pass over ``n`` bytes (``parts`` receives them in pieces when given): a big array is never joined with
        the bytes around it (a 256^3 file's 17 MB BlockData is joined once and copied once, not copied three times)."""
        if self.pos + n <= len(self.buf) or self.mark is not None or self.inflater is None:
            self.need(n)  # in the buffer already, or inside a RAW container whose bytes stay (or truncated)
            if parts is not None:  # a view: the array is copied once, into its tag
                parts.append(memoryview(self.buf)[self.pos : self.pos + n])
            self.pos += n
            return
        self.check_room(n, f"a value of {n:,} bytes")  # as need() would
        if parts is not None:
            parts.append(memoryview(self.buf)[self.pos :])
        n -= len(self.buf) - self.pos
        self.base += len(self.buf)
        self.buf, self.pos = b"", 0
        while n:
            chunk = self.inflate(max(n, self.limits.inflate_step))
            if not chunk:
                raise self.fail("NBT data is truncated (gzip stream ended early)", "nbt.truncated", TRUNCATED_HINT)
            if parts is not None:
                parts.append(memoryview(chunk)[:n])
            if len(chunk) > n:
                self.buf, self.pos = chunk, n
                return
            self.base += len(chunk)
            n -= len(chunk)

    def drain(self) -> int:
        """Inflate the rest of the stream; return how many bytes follow the current position. As in Java's
        GZIPInputStream (the plugin's reader), a further gzip member continues the same stream, so its bytes
        follow the root too; anything else after the last member is not read (``trailing_gzip_bytes``)."""
        trailing = len(self.buf) - self.pos
        while self.inflater is not None:
            while not self.inflater.eof:
                trailing += len(self.inflate(self.limits.inflate_step))
            rest = self.inflater.unused_data + self.pending
            if not rest.startswith(b"\x1f\x8b\x08"):  # no member header (magic, deflate): Java stops here
                self.stats.trailing_gzip_bytes = len(rest)
                break
            self.inflater, self.pending = zlib.decompressobj(wbits=31), rest
        return trailing

    def u8(self) -> int:
        if self.pos >= len(self.buf):
            self.need(1)
        self.pos += 1
        return self.buf[self.pos - 1]

    def length(self, unit: int, what: str) -> int:
        self.need(4)
        n = _INT.unpack_from(self.buf, self.pos)[0]
        self.pos += 4
        if n < 0:
            raise self.fail(f"negative {what} length {n}", "nbt.length.negative")
        self.check_room(n * unit, f"{what} length {n:,}")
        return n
