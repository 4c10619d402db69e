"""The position-keeping JSON parser: values as json.loads gives them, line:column for values, keys and errors."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcb.recipes.jsonpos import JsonSyntaxError, parse_with_positions

DOC = '{\n  "version": 1,\n  "operations": [\n    {"type": "box", "a/b": 5.0, "t~": -0}\n  ]\n}\n'


def test_values_and_positions_are_addressed_by_json_pointer():
    value, source = parse_with_positions(DOC)
    assert value == json.loads(DOC)
    assert source.locate("") == (1, 1)
    assert source.locate("/version") == (2, 14)
    assert source.locate("/version", key=True) == (2, 3)
    assert source.locate("/operations/0") == (4, 5)
    assert source.locate("/operations/0/type") == (4, 14)
    assert source.locate("/operations/0/a~1b") == (4, 28)
    assert source.locate("/operations/0/t~0", key=True) == (4, 33)
    assert source.source("/operations/0/a~1b") == "5.0"
    assert source.source("/operations/0/t~0") == "-0"


def test_missing_pointer_falls_back_to_the_nearest_ancestor():
    _, source = parse_with_positions(DOC)
    assert source.locate("/operations/0/nothing/deeper") == (4, 5)


def test_number_types_follow_the_literal_like_json_loads():
    value, _ = parse_with_positions("[5, 5.0, 5e0, -0, 1E+2, 12345678901234567890]")
    assert [type(v) for v in value] == [int, float, float, int, float, int]
    assert value == [5, 5.0, 5.0, 0, 100.0, 12345678901234567890]


def test_strings_decode_escapes_and_surrogate_pairs_like_json_loads():
    text = r'["a\"b\\c\/d\b\f\n\r\t", "\u00e9\ud83d\ude00", "\ud800x"]'
    value, _ = parse_with_positions(text)
    assert value == json.loads(text)


def test_duplicate_keys_keep_the_later_value_and_are_recorded():
    value, source = parse_with_positions('{"a": 1, "b": 2, "a": 3}')
    assert value == {"a": 3, "b": 2}
    assert source.duplicate_keys == ["/a"]


@pytest.mark.parametrize(
    ("text", "line", "column", "reason"),
    [
        ('{"a": 1,}', 1, 9, "expected a string key"),
        ("[1 2]", 1, 4, "expected ',' or ']'"),
        ('{\n  "a" 1\n}', 2, 7, "expected ':'"),
        ('{"a": 1\n\n  "b": 2}', 3, 3, "expected ',' or '}'"),
        ('"abc', 1, 1, "unterminated string"),
        ('"a\nb"', 1, 3, "control character"),
        (r'"\x"', 1, 2, "invalid escape"),
        (r'"\u12G4"', 1, 2, "invalid \\u escape"),
        ("[NaN]", 1, 2, "unexpected character 'N'"),
        ("[Infinity]", 1, 2, "unexpected character 'I'"),
        ("01", 1, 2, "extra data"),
        ("[1.]", 1, 3, "expected ',' or ']'"),
        ("-", 1, 1, "invalid number"),
        ("", 1, 1, "unexpected end of input"),
        ("[1]\n x", 2, 2, "extra data"),
        ("{'a': 1}", 1, 2, "expected a string key"),
    ],
)
def test_syntax_errors_carry_line_and_column(text, line, column, reason):
    with pytest.raises(JsonSyntaxError) as caught:
        parse_with_positions(text)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert reason in caught.value.message
    assert f"line {line} column {column}" in caught.value.message


def test_nesting_is_bounded():
    with pytest.raises(JsonSyntaxError, match="nesting deeper than 128"):
        parse_with_positions("[" * 129 + "]" * 129)
    value, _ = parse_with_positions("[" * 128 + "]" * 128)
    assert isinstance(value, list)


def test_huge_integer_literal_is_a_syntax_error_not_a_value_error():
    with pytest.raises(JsonSyntaxError, match="digits"):
        parse_with_positions("1" * 5000)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=30,
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(json_values, st.sampled_from([None, 2]), st.booleans())
def test_agrees_with_json_loads_on_valid_documents(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    parsed, source = parse_with_positions(text)
    assert parsed == json.loads(text)
    assert source.locate("") is not None


@settings(max_examples=300)
@given(st.text(alphabet='{}[]",:0123456789.eE+-tfrueanl \n\\u', max_size=40))
def test_arbitrary_text_gives_the_same_value_or_its_own_error(text):
    try:
        expected = json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
    except ValueError:
        expected = JsonSyntaxError
    try:
        parsed, _ = parse_with_positions(text)
    except JsonSyntaxError:
        parsed = JsonSyntaxError
    assert parsed == expected


@settings(max_examples=200)
@given(st.binary(max_size=60))
def test_never_raises_anything_but_its_own_error(data):
    text = data.decode("utf-8", errors="replace")
    try:
        parse_with_positions(text)
    except JsonSyntaxError:
        pass
