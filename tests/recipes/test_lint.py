"""Every lint rule, located by rule id, JSON pointer and line:column, with the server's own message."""

from __future__ import annotations

import json

import pytest

from mcb.blocks.registry import load_registry
from mcb.recipes.lint import RecipeLinter
from mcb.reports.model import Severity

from .helpers import box, cylinder, recipe, repeat


@pytest.fixture(scope="module")
def linter():
    return RecipeLinter(registry=load_registry("26.2"), max_blocks=4096)


def findings(linter, text, max_blocks=None):
    if max_blocks is not None:
        linter = RecipeLinter(registry=linter.registry, max_blocks=max_blocks)
    report = linter.lint_text(text, "r.json")
    return [(d.rule, d.pointer, d.line, d.column) for d in report.diagnostics], report


def only(linter, text, **kwargs):
    found, report = findings(linter, text, **kwargs)
    assert len(found) == 1, found
    return found[0], report.diagnostics[0]


def lines(*rows: str) -> str:
    return "\n".join(rows) + "\n"


def column_of(text: str, token: str, line_no: int = 2) -> int:
    """1-based column of the first ``token`` on line ``line_no`` of ``text`` (computed from the raw text)."""
    return text.splitlines()[line_no - 1].index(token) + 1


def test_clean_recipe_has_no_findings_and_reports_budgets(linter):
    found, report = findings(linter, json.dumps(recipe(box((0, 0, 0), (1, 1, 1)))))
    assert found == [] and not report.failed(strict=True)
    assert report.facts["block_count"] == 8
    assert report.facts["budgets"]["scan"] == {"used": 8, "limit": 65536}


def test_json_syntax_error_has_line_and_column(linter):
    text = lines("{", '  "version": 1,', '  "operations": [', '    {"type": "box",}', "  ]", "}")
    (rule, pointer, line_no, column), diagnostic = only(linter, text)
    assert (rule, line_no, column) == ("recipe.json.syntax", 4, 20)
    assert "expected a string key" in diagnostic.message


def test_not_utf8(linter):
    report = linter.lint_bytes(b'{"version": 1, "operations": [], "\xff": 1}', "r.json")
    assert [(d.rule, d.line, d.column) for d in report.diagnostics] == [("recipe.json.encoding", 1, 1)]


def test_byte_order_mark_is_a_warning(linter):
    found, _ = findings(linter, "\ufeff" + json.dumps(recipe(box((0, 0, 0), (0, 0, 0)))))
    assert found == [("recipe.json.bom", "", 1, 1)]


def test_duplicate_key_is_a_warning_at_the_second_key(linter):
    text = lines("{", '  "version": 1,', '  "version": 1,', '  "operations": []', "}")
    found, report = findings(linter, text)
    assert ("recipe.json.duplicate-key", "/version", 3, 3) in found
    assert report.errors == 0


def test_schema_key_is_refused_like_the_server_does(linter):
    text = lines("{", '  "$schema": "./recipe.schema.json",', '  "version": 1,', '  "operations": []', "}")
    found, report = findings(linter, text)
    assert ("recipe.schema-key", "/$schema", 2, 3) in found
    diagnostic = next(d for d in report.diagnostics if d.rule == "recipe.schema-key")
    assert "Unknown field: $schema" in diagnostic.message and "editor settings" in diagnostic.hint


def test_unknown_key_points_at_the_key(linter):
    text = lines(
        '{"version": 1, "operations": [',
        '  {"type": "line", "from": {"x": 0, "y": 0, "z": 0}, '
        '"to": {"x": 0, "y": 0, "z": 0}, "block": "minecraft:stone", "colour": "red"}',
        "]}",
    )
    (rule, pointer, line_no, column), diagnostic = only(linter, text)
    assert (rule, pointer, line_no, column) == (
        "recipe.unknown-key",
        "/operations/0/colour",
        2,
        column_of(text, '"colour"'),
    )
    assert "type, from, to, block" in diagnostic.hint


def test_missing_key(linter):
    text = lines(
        '{"version": 1, "operations": [',
        '  {"type": "box", "min": {"x": 0, "y": 0, "z": 0}, "block": "minecraft:stone"}',
        "]}",
    )
    (rule, pointer, line_no, column), diagnostic = only(linter, text)
    assert (rule, pointer, line_no, column) == ("recipe.missing-key", "/operations/0", 2, 3)
    assert "Missing field: max" in diagnostic.message


@pytest.mark.parametrize("literal", ["5.0", "5e0", "5E+0", '"5"'])
def test_strict_integer_grammar(linter, literal):
    text = lines(
        '{"version": 1, "operations": [',
        '  {"type": "box", "min": {"x": 0, "y": ' + literal + ', "z": 0}, "max": {"x": 0, "y": 5, "z": 0}, '
        '"block": "minecraft:stone"}',
        "]}",
    )
    (rule, pointer, line_no, column), diagnostic = only(linter, text)
    assert (rule, pointer, line_no, column) == (
        "recipe.strict-integer",
        "/operations/0/min/y",
        2,
        column_of(text, literal),
    )
    assert literal.strip('"') in diagnostic.message and "y must be an integer" in diagnostic.message
    assert diagnostic.hint.startswith("write 5")


def test_wrong_type(linter):
    (rule, pointer, line_no, column), diagnostic = only(linter, lines('{"version": 1,', '"operations": {}}'))
    assert (rule, pointer, line_no, column) == ("recipe.type", "/operations", 2, 15)
    assert "expected an array" in diagnostic.message


def test_int32_literal(linter):
    text = json.dumps(recipe(box((0, 0, 0), (2147483648, 0, 0))))
    (rule, pointer, line_no, column), diagnostic = only(linter, text)
    assert (rule, pointer) == ("recipe.int32", "/operations/0/max/x")
    assert column == text.index("2147483648") + 1 and line_no == 1
    assert "x exceeds 32-bit bounds" in diagnostic.message


@pytest.mark.parametrize("written", ["1e10", "1e400", "-3e9", "2147483648.0"])
def test_a_number_that_is_no_integer_literal_gets_only_the_servers_first_complaint(linter, written):
    """The server's strict parser stops at "must be an integer" (the text is no integer literal) before it checks
    the range, so lint reports that alone, with a hint that fits int32."""
    text = (
        '{"version":1,"operations":[{"type":"cylinder","center":{"x":' + written + ',"y":64,"z":0},"radius":4,'
        '"height":1,"block":"minecraft:stone"}]}'
    )
    (rule, pointer, _line, _column), diagnostic = only(linter, text)
    assert (rule, pointer) == ("recipe.strict-integer", "/operations/0/center/x")
    assert 'server: "x must be an integer"' in diagnostic.message and "-2147483648..2147483647" in diagnostic.hint


def test_int32_overflow_after_repeat_offsets(linter):
    # the second iteration adds x + 1 to the box's min: int32 overflow on the server
    text = json.dumps(recipe(repeat(2, (1, 0, 0), [box((2147483647, 0, 0), (2147483647, 0, 0))])))
    (rule, pointer, _, column), diagnostic = only(linter, text)
    assert (rule, pointer) == ("recipe.int32", "/operations/0/operations/0/min")
    assert column == text.index('{"x": 2147483647') + 1
    assert "integer overflow" in diagnostic.message


@pytest.mark.parametrize(
    ("operation", "name"),
    [
        (cylinder((0, 0, 0), -1, 1), "radius"),
        (cylinder((0, 0, 0), 1, 0), "height"),
        (repeat(0, (0, 0, 0), []), "count"),
        (repeat(1025, (0, 0, 0), []), "count"),
    ],
)
def test_ranges(linter, operation, name):
    (rule, pointer, _, _), diagnostic = only(linter, json.dumps(recipe(operation)))
    assert (rule, pointer) == ("recipe.range", f"/operations/0/{name}")


def test_version(linter):
    text = json.dumps({"version": 2, "operations": [box((0, 0, 0), (0, 0, 0))]})
    (rule, pointer, line_no, column), diagnostic = only(linter, text)
    assert (rule, pointer, line_no, column) == ("recipe.version", "/version", 1, 13)
    assert "Unsupported recipe version" in diagnostic.message


def test_operation_type(linter):
    (rule, pointer, _, column), _ = only(linter, '{"version": 1, "operations": [{"type": "sphere"}]}')
    assert (rule, pointer, column) == ("recipe.operation-type", "/operations/0/type", 40)


def test_nesting(linter):
    inner = [box((0, 0, 0), (0, 0, 0))]
    for _ in range(9):
        inner = [repeat(1, (0, 0, 0), inner)]
    text = json.dumps(recipe(*inner))
    (rule, pointer, _, _), diagnostic = only(linter, text)
    assert rule == "recipe.nesting" and pointer == "/operations/0" + "/operations/0" * 8 + "/type"
    assert "Recipe nesting exceeds limit" in diagnostic.message


def test_empty_recipe_is_a_warning(linter):
    (rule, pointer, line_no, column), diagnostic = only(linter, '{"version": 1, "operations": []}')
    assert (rule, pointer, line_no, column, diagnostic.severity) == (
        "recipe.empty",
        "/operations",
        1,
        30,
        Severity.WARNING,
    )


def test_box_bounds(linter):
    text = lines(
        '{"version": 1, "operations": [',
        '  {"type": "box", "min": {"x": 5, "y": 0, "z": 0}, "max": {"x": 2, "y": 0, "z": 0}, '
        '"block": "minecraft:stone"}',
        "]}",
    )
    (rule, pointer, line_no, column), diagnostic = only(linter, text)
    assert (rule, pointer, line_no, column) == ("recipe.box.bounds", "/operations/0/min/x", 2, column_of(text, "5"))
    assert "Invalid inclusive region bounds" in diagnostic.message


@pytest.mark.parametrize(
    ("block", "rule", "hint_part"),
    [
        ("Stone", "recipe.block.syntax", "lowercase"),
        ("minecraft:stone ", "recipe.block.syntax", "no spaces"),
        ("minecraft:stonee", "recipe.block.unknown", "minecraft:stone"),
        ("minecraft:diamond", "recipe.block.item-only", "minecraft:diamond_block"),
        ("minecraft:water_bucket", "recipe.block.item-only", "minecraft:water"),
        ("minecraft:stone[facing=east]", "recipe.block.property", "no properties"),
        ("minecraft:oak_stairs[facing=up]", "recipe.block.value", "north"),
    ],
)
def test_block_states(linter, block, rule, hint_part):
    text = lines(
        '{"version": 1, "operations": [',
        '  {"type": "line", "from": {"x": 0, "y": 0, "z": 0}, "to": {"x": 0, "y": 0, "z": 0}, '
        f'"block": {json.dumps(block)}}}',
        "]}",
    )
    (found_rule, pointer, line_no, column), diagnostic = only(linter, text)
    assert (found_rule, pointer, line_no, column) == (
        rule,
        "/operations/0/block",
        2,
        column_of(text, json.dumps(block)),
    )
    assert hint_part in diagnostic.hint


def test_array_limit(linter):
    text = json.dumps(recipe(*[box((0, 0, 0), (0, 0, 0))] * 4097))
    found, _ = findings(linter, text)
    assert found == [("recipe.budget.array", "/operations", 1, 30)]


def test_expanded_operations_budget(linter):
    text = json.dumps(recipe(repeat(1024, (0, 0, 0), [box((0, 0, 0), (0, 0, 0))] * 4)))
    (rule, pointer, _, _), diagnostic = only(linter, text)
    # 1 + 1023 * 4 = 4093 elements, then the 4th child of iteration 1024 is element 4097
    assert (rule, pointer) == ("recipe.budget.operations", "/operations/0/operations/3")
    assert "4,097" in diagnostic.message and "Expanded operation count exceeds limit" in diagnostic.message


def test_scan_budget_names_the_total_and_the_crossing_operation(linter):
    # 20 iterations of a 100-cell box: 100 unique cells, 2,000 visits > 16 * 100
    text = json.dumps(recipe(repeat(20, (0, 0, 0), [box((0, 0, 0), (9, 0, 9))])))
    (rule, pointer, _, _), diagnostic = only(linter, text, max_blocks=100)
    assert (rule, pointer) == ("recipe.budget.scan", "/operations/0/operations/0")
    assert "2,000" in diagnostic.message and "1,600" in diagnostic.message


def test_block_budget_counts_unique_positions(linter):
    text = json.dumps(recipe(box((0, 0, 0), (4, 0, 0)), box((0, 1, 0), (4, 1, 0))))
    (rule, pointer, _, _), diagnostic = only(linter, text, max_blocks=8)
    assert (rule, pointer) == ("recipe.budget.blocks", "/operations/1")
    assert "10 distinct blocks" in diagnostic.message and "Recipe block limit exceeded" in diagnostic.message


def test_a_recipe_over_the_server_request_limit_is_an_error(linter):
    text = json.dumps(recipe(box((0, 0, 0), (0, 0, 0)))) + " " * (1024 * 1024)
    found, report = findings(linter, text)
    assert found == [("recipe.file.size", "", 1, 1)] and report.errors == 1


@pytest.mark.parametrize(
    ("document", "kind"),
    [
        ({"version": 1, "min": {}, "max": {}, "base_height": 64, "noise": {}}, "terrain recipe"),
        ({"min": {}, "max": {}, "center": {}, "radius": 4, "action": "raise"}, "terrain brush"),
        ({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}, "JSON Schema"),
    ],
)
def test_other_documents_are_named_and_skipped(linter, document, kind):
    (rule, _, _, _), diagnostic = only(linter, json.dumps(document))
    assert rule == "recipe.not-build-recipe" and kind in diagnostic.message
    assert diagnostic.severity is Severity.WARNING


def test_the_servers_first_error_leads_then_findings_come_sorted_by_position(linter):
    text = lines(
        '{"version": 1, "operations": [',
        '  {"type": "box", "min": {"x": 0, "y": 1.5, "z": 0}, "max": {"x": 0, "y": 0, "z": 0}, '
        '"block": "minecraft:diamond", "x": 1},',
        '  {"type": "cone"}',
        "]}",
    )
    found, _ = findings(linter, text)
    # The server checks an operation's keys before its values: "Unknown field: x" is what it (and compile) say.
    assert [f[0] for f in found] == [
        "recipe.unknown-key",
        "recipe.strict-integer",
        "recipe.block.item-only",
        "recipe.operation-type",
    ]
    assert [f[2] for f in found] == [2, 2, 2, 3]


def test_every_finding_has_a_hint_pointer_and_location(linter):
    text = lines(
        '{"version": 1, "operations": [',
        '  {"type": "box", "min": {"x": 0, "y": 1.5, "z": null}, "max": {"x": -1, "y": 0, "z": 0}, '
        '"block": "minecraft:diamond", "x": 1},',
        '  {"type": "cylinder", "center": {"x": 0, "y": 0, "z": 0}, "radius": -2, "height": "3", "block": "Stone"},',
        '  {"type": "repeat", "count": 2000, "offset": {"x": 0, "y": 0, "z": 0}, "operations": 5},',
        '  {"type": "cone"}, 7',
        "]}",
    )
    report = linter.lint_text(text, "r.json")
    assert len(report.diagnostics) >= 9
    for diagnostic in report.diagnostics:
        assert diagnostic.hint, diagnostic
        assert diagnostic.pointer is not None and diagnostic.line and diagnostic.column, diagnostic


def test_mcp_bridge_limits_are_warnings_only_when_asked(linter):
    value = recipe(
        cylinder((0, 64, 0), 129, 1),
        box((0, 5000, 0), (0, 5000, 0)),
        repeat(129, (0, 0, 0), [repeat(1, (0, 0, 0), [box((0, 0, 0), (0, 0, 0))])]),
    )
    text = json.dumps(value)
    assert findings(RecipeLinter(registry=linter.registry, max_blocks=200_000), text)[0] == []
    bridge = RecipeLinter(registry=linter.registry, max_blocks=200_000, mcp_bridge=True)
    found, report = findings(bridge, text)
    assert {(rule, pointer) for rule, pointer, _, _ in found} == {
        ("recipe.mcp-bridge", "/operations/0/radius"),
        ("recipe.mcp-bridge", "/operations/1/min/y"),
        ("recipe.mcp-bridge", "/operations/1/max/y"),
        ("recipe.mcp-bridge", "/operations/2/count"),
        ("recipe.mcp-bridge", "/operations/2/operations/0"),
    }
    assert report.errors == 0 and report.warnings == 5


@pytest.mark.parametrize("depth", [300, 3000])
def test_nesting_too_deep_for_our_parser_is_a_located_syntax_error(linter, depth):
    text = '{"version": 1, "operations": ' + "[" * depth + "]" * depth + "}"
    (rule, pointer, line_no, column), diagnostic = only(linter, text)
    assert (rule, line_no, column) == ("recipe.json.syntax", 1, len('{"version": 1, "operations": ') + 128)
    assert "nesting deeper than 128" in diagnostic.message


def test_block_budget_when_a_later_shape_is_too_big_to_count(linter):
    text = json.dumps(recipe(box((0, 0, 0), (9, 1, 9)), box((0, 5, 0), (1999, 5, 1999))))
    (rule, pointer, _, _), diagnostic = only(linter, text, max_blocks=100)
    assert (rule, pointer) == ("recipe.budget.blocks", "/operations/0")
    assert "more than 100 distinct blocks" in diagnostic.message


@pytest.mark.parametrize("text", ["null", "[]", '"recipe"', "5"])
def test_root_must_be_an_object(linter, text):
    (rule, pointer, line_no, column), diagnostic = only(linter, text)
    assert (rule, pointer, line_no, column) == ("recipe.type", "", 1, 1)
    assert "Expected an object" in diagnostic.message
