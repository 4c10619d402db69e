"""The SNBT writer: what it writes reads back as the same tags in an independent parser (nbtlib's), keys are bare
only when they may be, strings are always quoted and stay on one line, and a value without an SNBT form is refused."""

from __future__ import annotations

import math

import nbtlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcb.schematics.nbt import (
    TAG_COMPOUND,
    TAG_INT,
    TAG_STRING,
    Byte,
    ByteArray,
    Compound,
    Double,
    Float,
    Int,
    IntArray,
    List,
    Long,
    LongArray,
    Short,
    String,
)
from mcb.schematics.snbt import SnbtError, quote, to_snbt

# Printable text without control characters (nbtlib reads only the quote and backslash escapes).
texts = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x2FFF, exclude_characters="\x7f"), max_size=12)
scalars = st.one_of(
    st.integers(-128, 127).map(Byte),
    st.integers(-(2**15), 2**15 - 1).map(Short),
    st.integers(-(2**31), 2**31 - 1).map(Int),
    st.integers(-(2**63), 2**63 - 1).map(Long),
    st.floats(width=32, allow_nan=False, allow_infinity=False).map(Float),
    st.floats(allow_nan=False, allow_infinity=False).map(Double),
    texts.map(String),
    st.binary(max_size=6).map(ByteArray),
    st.lists(st.integers(-(2**31), 2**31 - 1), max_size=4).map(lambda v: IntArray(v)),
    st.lists(st.integers(-(2**63), 2**63 - 1), max_size=4).map(lambda v: LongArray(v)),
)


def _homogeneous(children):
    return st.one_of(
        st.lists(st.integers(-(2**31), 2**31 - 1).map(Int), max_size=4).map(lambda v: List(v, TAG_INT)),
        st.lists(texts.map(String), max_size=4).map(lambda v: List(v, TAG_STRING)),
        st.lists(st.dictionaries(texts, children, max_size=3).map(Compound), max_size=3).map(
            lambda v: List(v, TAG_COMPOUND)
        ),
    )


trees = st.recursive(
    scalars,
    lambda children: st.one_of(st.dictionaries(texts, children, max_size=4).map(Compound), _homogeneous(children)),
)


def plain(value):
    """(type name, value) all the way down, for ours and nbtlib's alike (nbtlib names a list ``List[Int]``)."""
    kind = type(value).__name__.split("[")[0]
    if kind == "Compound":
        return kind, {str(k): plain(v) for k, v in value.items()}
    if kind == "List":
        return kind, [plain(v) for v in value]
    if kind == "ByteArray" and isinstance(value, bytes):
        return kind, np.frombuffer(value, dtype=np.int8).tolist()
    if kind in ("ByteArray", "IntArray", "LongArray"):
        return kind, [int(v) for v in value]
    if kind == "Float":
        return kind, float(np.float32(value))
    if kind in ("Double", "String"):
        return kind, float(value) if kind == "Double" else str(value)
    return kind, int(value)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(texts, trees, max_size=5).map(Compound))
def test_what_it_writes_an_independent_parser_reads_as_the_same_tags(tree):
    text = to_snbt(tree)
    assert "\n" not in text
    assert plain(nbtlib.parse_nbt(text)) == plain(tree)


def test_exact_text_of_each_tag_type():
    value = Compound(
        b=Byte(1),
        s=Short(-2),
        i=Int(3),
        l=Long(4),
        f=Float(0.1),
        d=Double(90.0),
        t=String("true"),
        ba=ByteArray(b"\x01\xff"),
        ia=IntArray((1, -2)),
        la=LongArray((5,)),
        e=List([], 0),
        **{"minecraft:custom_data": Compound(), "a b": Int(0)},
    )
    assert to_snbt(value) == (
        '{b:1b,s:-2s,i:3,l:4L,f:0.1f,d:90.0d,t:"true",ba:[B;1b,-1b],ia:[I;1,-2],la:[L;5L],e:[],'
        '"minecraft:custom_data":{},"a b":0}'
    )
    assert to_snbt({"x": [1.5, "a"], "n": 7}) == '{x:[1.5d,"a"],n:7}'  # plain Python values as the writer types them


def test_strings_pick_the_quote_that_needs_fewer_escapes_and_escape_control_characters():
    assert quote('say "hi"') == "'say \"hi\"'"
    assert quote("it's") == '"it\'s"'
    assert quote("a\\b") == '"a\\\\b"'
    assert quote("line\nnext\ttab\x01") == '"line\\nnext\\ttab\\x01"'


@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf])
def test_a_number_without_an_snbt_form_is_refused(number):
    with pytest.raises(SnbtError):
        to_snbt(Compound(v=Double(number)))
