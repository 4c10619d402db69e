"""Stable rule ids of `mcb recipe lint` and their one-line descriptions (shown in SARIF and `--help`)."""

from __future__ import annotations

JSON_SYNTAX = "recipe.json.syntax"
JSON_DUPLICATE_KEY = "recipe.json.duplicate-key"
JSON_BOM = "recipe.json.bom"
ENCODING = "recipe.json.encoding"
FILE_SIZE = "recipe.file.size"
SCHEMA = "recipe.schema"
SCHEMA_KEY = "recipe.schema-key"
UNKNOWN_KEY = "recipe.unknown-key"
MISSING_KEY = "recipe.missing-key"
TYPE = "recipe.type"
STRICT_INTEGER = "recipe.strict-integer"
INT32 = "recipe.int32"
RANGE = "recipe.range"
VERSION = "recipe.version"
OPERATION_TYPE = "recipe.operation-type"
NESTING = "recipe.nesting"
EMPTY = "recipe.empty"
BOX_BOUNDS = "recipe.box.bounds"
BLOCK_SYNTAX = "recipe.block.syntax"
BLOCK_UNKNOWN = "recipe.block.unknown"
BLOCK_ITEM_ONLY = "recipe.block.item-only"
BLOCK_PROPERTY = "recipe.block.property"
BLOCK_VALUE = "recipe.block.value"
BUDGET_ARRAY = "recipe.budget.array"
BUDGET_OPERATIONS = "recipe.budget.operations"
BUDGET_SCAN = "recipe.budget.scan"
BUDGET_BLOCKS = "recipe.budget.blocks"
SERVER_REJECT = "recipe.server-reject"
NOT_BUILD_RECIPE = "recipe.not-build-recipe"
MCP_BRIDGE = "recipe.mcp-bridge"

DESCRIPTIONS: dict[str, str] = {
    JSON_SYNTAX: "The file is not valid JSON",
    JSON_DUPLICATE_KEY: "An object has the same key twice (the later value is used)",
    JSON_BOM: "The file starts with a UTF-8 byte-order mark",
    ENCODING: "The file is not UTF-8",
    FILE_SIZE: "The recipe is larger than the server's 1 MiB request limit",
    SCHEMA: "The recipe does not match the recipe schema",
    SCHEMA_KEY: "A $schema key: the server refuses every unknown key",
    UNKNOWN_KEY: "A key the server does not accept",
    MISSING_KEY: "A required key is missing or null",
    TYPE: "A value has the wrong JSON type",
    STRICT_INTEGER: 'A number written as 5.0, 5e0 or "5" where the server wants an integer literal',
    INT32: "A coordinate or computed coordinate outside the 32-bit integer range",
    RANGE: "repeat count outside 1..1024, negative cylinder radius, or height below 1",
    VERSION: "The recipe version is not 1",
    OPERATION_TYPE: "An operation type other than box, line, cylinder or repeat",
    NESTING: "More than 8 nested repeats",
    EMPTY: "The recipe has no operations",
    BOX_BOUNDS: "A box whose min is greater than its max on some axis",
    BLOCK_SYNTAX: "A block value that is not a recipe block-state string",
    BLOCK_UNKNOWN: "A block id that the registry does not know",
    BLOCK_ITEM_ONLY: "An item-only material used as a block",
    BLOCK_PROPERTY: "A block property the block does not have",
    BLOCK_VALUE: "A block property value the property does not allow",
    BUDGET_ARRAY: "More than 4096 operations in one array",
    BUDGET_OPERATIONS: "More than 4096 operations visited while expanding repeats",
    BUDGET_SCAN: "The shapes' scan charges exceed min(2,000,000, 16 × max_plan_blocks)",
    BUDGET_BLOCKS: "More distinct positions than max_plan_blocks",
    SERVER_REJECT: "Another compiler error of the server",
    NOT_BUILD_RECIPE: "A terrain recipe, brush or JSON Schema among the build recipes (not linted)",
    MCP_BRIDGE: "Refused by the MCP bridge's stricter schema (checked when asked for)",
}
