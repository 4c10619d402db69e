"""Deflating in pieces on threads gives one gzip member that inflates back to the data, for every piece size."""

from __future__ import annotations

import gzip
import zlib

from hypothesis import given, settings, strategies as st

from mcb.schematics.gzip_parallel import gzip_compress


@st.composite
def payloads(draw):
    words = draw(st.lists(st.binary(min_size=1, max_size=50), min_size=1, max_size=6))
    return b"".join(draw(st.lists(st.sampled_from(words), max_size=800)))


@settings(max_examples=200, deadline=None)
@given(data=payloads(), level=st.integers(1, 9), piece=st.integers(1, 3000))
def test_pieces_make_one_member_that_inflates_to_the_data(data, level, piece):
    out = gzip_compress(data, level, piece=piece)
    inflater = zlib.decompressobj(wbits=31)
    assert inflater.decompress(out) == data
    assert inflater.eof and inflater.unused_data == b""  # one member, nothing after it
    assert out[:10] == gzip.compress(b"", compresslevel=level, mtime=0)[:10]  # the header gzip.compress writes
    assert gzip_compress(data, level, piece=piece) == out  # the bytes do not depend on thread timing


def test_big_data_is_cut_into_pieces_and_still_compresses_well():
    data = b"".join(b"minecraft:stone[facing=%d]" % (i % 7) for i in range(400_000))
    pieces = gzip_compress(data, 3, piece=1 << 20)
    whole = gzip.compress(data, compresslevel=3, mtime=0)
    assert pieces != whole  # really cut (sync-flush markers between pieces)
    assert gzip.decompress(pieces) == data
    assert len(pieces) <= len(whole) * 1.1  # each piece is primed with the 32 KiB before it (on this very regular
    # data a restart still costs ~6%; on the 256^3 corpus file the pieces come out 0.03% smaller than one stream)
