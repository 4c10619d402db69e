"""`mcb recipe lint`: JSON syntax → JSON Schema → semantic rules, every finding with a JSON pointer and line:column.

    linter = RecipeLinter(registry=load_registry("26.2"), max_blocks=4096)
    report = linter.lint_file(Path("recipes/tower.json"))      # -> mcb.reports.FileReport

Stages (a stage that finds errors stops the later ones only where they would be meaningless):
1. syntax: UTF-8 and strict JSON, errors located by our own parser (:mod:`mcb.recipes.jsonpos`);
2. schema: the published schema (:mod:`mcb.recipes.model`) through ``jsonschema``, with a type checker that
   applies the server's lexical integer rule, so ``5.0``/``5e0``/``"5"`` are reported where they are written;
3. semantics: block states against the registry (item-only materials named as such), box min ≤ max, and — when
   the recipe is otherwise valid — the server's own compiler for the scan, block and expanded-operation budgets and
   int32 overflow, so a lint-clean recipe is one ``build_prepare`` compiles.

Fast path for clean files: they are parsed with the C ``json`` module, and the server's compiler runs first; when
it accepts the recipe the schema cannot object (the compiler is at least as strict, a property test holds them
together), so ``jsonschema`` runs only for recipes the compiler refuses, to list every structural problem at once.
The position-keeping parser runs only when a finding needs a location.
"""

from __future__ import annotations

import json
from pathlib import Path

from mcb.recipes import rules as R
from mcb.recipes.compile import (
    BLOCK_PATTERN,
    RecipeRejected,
    compile_geometry,
    first_rejection,
    scan_budget,
)
from mcb.recipes.jsonpos import JsonSyntaxError, SourceMap, parse_with_positions
from mcb.recipes.limits import MAX_RECIPE_BYTES, TOO_LARGE_HINT, too_large
from mcb.recipes.lint_schema import explain_schema_error
from mcb.reports.model import Diagnostic, FileReport, Severity

_validator = None


def recipe_validator():
    """The compiled Draft 2020-12 validator of the recipe schema (built once per process)."""
    global _validator
    if _validator is None:
        from jsonschema import Draft202012Validator
        from jsonschema.validators import extend

        from mcb.recipes.model import recipe_json_schema

        # The server's integers are lexical: 5.0 is a JSON number that is not an integer literal.
        checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", lambda _checker, value: type(value) is int)
        validator_class = extend(Draft202012Validator, type_checker=checker)
        _validator = validator_class(recipe_json_schema())
    return _validator


class RecipeLinter:
    def __init__(self, *, registry=None, max_blocks: int = 4096, compiler_first: bool = True, mcp_bridge: bool = False):
        """``compiler_first``: try the server's compiler before the schema, which it makes redundant when it passes
        (about 8x cheaper than ``jsonschema`` on a valid recipe); False always runs the schema (for benchmarks)."""
        self.registry = registry
        self.max_blocks = max_blocks
        self.compiler_first = compiler_first
        self.mcp_bridge = mcp_bridge  # also warn where the MCP bridge's stricter schema would refuse
        self._state_verdicts: dict[str, tuple | None] = {}

    def lint_file(self, path: Path) -> FileReport:
        name = str(path)
        size = path.stat().st_size
        if size > MAX_RECIPE_BYTES:
            return _too_large(name, size)
        with path.open("rb") as handle:
            return self.lint_bytes(handle.read(MAX_RECIPE_BYTES + 1), name)

    def lint_bytes(self, data: bytes, name: str) -> FileReport:
        if len(data) > MAX_RECIPE_BYTES:  # stdin is read only this far (plus one byte to tell)
            return _too_large(name)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            return FileReport(
                name,
                [
                    Diagnostic(
                        R.ENCODING,
                        Severity.ERROR,
                        f"not UTF-8: {error.reason} at byte {error.start}",
                        name,
                        "",
                        1,
                        1,
                        "save the file as UTF-8",
                    )
                ],
            )
        return self.lint_text(text, name)

    def lint_text(self, text: str, name: str) -> FileReport:
        if (
            len(text) > MAX_RECIPE_BYTES // 4 and len(text.encode("utf-8")) > MAX_RECIPE_BYTES
        ):  # (4 bytes a char at most)
            return _too_large(name, len(text.encode("utf-8")))
        return _FileLint(self, text, name).run()

    def state_verdict(self, state: str) -> tuple | None:
        """None when the registry accepts ``state``; else (rule, message, hint). Cached per linter."""
        if state not in self._state_verdicts:
            self._state_verdicts[state] = self._judge_state(state)
        return self._state_verdicts[state]

    def _judge_state(self, state: str) -> tuple | None:
        if self.registry is None:
            return None
        from mcb.blocks.state import BlockStateError
        from mcb.recipes.items import item_only

        try:
            self.registry.canonicalize(state)
            return None
        except BlockStateError as error:
            block_id = state.split("[", 1)[0]
            is_item, suggestion = item_only(block_id)
            if is_item and error.code == "block.unknown":
                hint = f"use the block {suggestion}" if suggestion else "pick a block; items cannot be placed"
                return (R.BLOCK_ITEM_ONLY, f"{block_id} is an item, not a block (server: unsupported_block)", hint)
            rule = {
                "block.unknown": R.BLOCK_UNKNOWN,
                "block.property.unknown": R.BLOCK_PROPERTY,
                "block.value.invalid": R.BLOCK_VALUE,
            }.get(error.code, R.BLOCK_SYNTAX)
            return rule, f"{error.message} (server: unsupported_block)", error.hint_template


class _FileLint:
    """One file's lint run: collects findings, locates them at the end."""

    def __init__(self, linter: RecipeLinter, text: str, name: str):
        self.linter = linter
        self.text = text
        self.name = name
        self.findings: list[tuple[str, Severity, str, str, str | None, bool]] = []
        self._seen: set[tuple] = set()
        self._source_map: SourceMap | None = None
        self.facts: dict = {}
        self.server_first: RecipeRejected | None = None  # the error build_prepare (and `recipe compile`) stops at

    def add(
        self,
        rule: str,
        message: str,
        pointer: str,
        hint: str | None = None,
        *,
        severity: Severity = Severity.ERROR,
        at_key: bool = False,
    ) -> None:
        finding = (rule, severity, message, pointer, hint, at_key)
        if finding not in self._seen:  # jsonschema may report one problem through several keywords
            self._seen.add(finding)
            self.findings.append(finding)

    @property
    def source_map(self) -> SourceMap:
        if self._source_map is None:
            self._source_map = parse_with_positions(self.text)[1]
        return self._source_map

    def run(self) -> FileReport:
        try:
            return self._run()
        except JsonSyntaxError as error:
            # json.loads took a document our parser refuses (nesting deeper than ours allows): report it as such.
            self.findings, self.facts = [], {}
            self.syntax_error(error)
            return FileReport(self.name, self.diagnostics(), self.facts)

    def _run(self) -> FileReport:
        recipe = self.parse()
        other = _other_document_kind(recipe)
        if other:
            from mcb.recipes.lint_files import other_document_hint

            what = "a recipe" if other == "a JSON Schema" else "a build recipe"
            self.add(
                R.NOT_BUILD_RECIPE,
                f"this is {other}, not {what}; not linted",
                "",
                other_document_hint(other, "`mcb recipe lint`"),
                severity=Severity.WARNING,
            )
        elif recipe is not _SYNTAX_ERROR:
            compiled = self.try_compile(recipe)
            if compiled is not None:
                # The server's compiler accepted every key, type, range and budget, so the schema (no stricter
                # than the compiler: tests/recipes/test_schema_compiler_agreement.py) has nothing to add.
                self.check_semantics(recipe)
                self.record_facts(compiled)
                if self.linter.mcp_bridge:
                    self.check_bridge(recipe)
            else:
                schema_ok = self.check_schema(recipe)
                self.check_semantics(recipe)
                if schema_ok:  # the shapes are well formed: budgets and overflow mean something, block errors or not
                    self.check_budgets(recipe)
                    if self.linter.mcp_bridge and not any(f[1] is Severity.ERROR for f in self.findings):
                        self.check_bridge(recipe)
            if any(f[1] is Severity.ERROR for f in self.findings):
                self.server_first = first_rejection(recipe, self.linter.registry, max_blocks=self.linter.max_blocks)
        return FileReport(self.name, self.diagnostics(), self.facts)

    def try_compile(self, recipe):
        if not self.linter.compiler_first:
            return None
        try:
            return compile_geometry(recipe, max_blocks=self.linter.max_blocks)
        except RecipeRejected:
            return None

    def record_facts(self, compiled) -> None:
        self.facts.update(compiled.summary())
        self.facts.pop("palette", None)
        self.facts.pop("canonical", None)

    # -- stage 1 -----------------------------------------------------------------------------------------------
    def parse(self):
        duplicates = []

        def pairs_hook(pairs):
            result = dict(pairs)
            if len(result) != len(pairs):
                duplicates.append(True)
            return result

        try:
            value = json.loads(self.text, object_pairs_hook=pairs_hook, parse_constant=_refuse_constant)
        except (ValueError, RecursionError):
            value = _SYNTAX_ERROR
        if value is _SYNTAX_ERROR or duplicates or self.text.startswith("\ufeff"):
            try:
                value, self._source_map = parse_with_positions(self.text.removeprefix("\ufeff"))
            except JsonSyntaxError as error:
                self.syntax_error(error)
                return _SYNTAX_ERROR
            if self.text.startswith("\ufeff"):
                self.add(
                    R.JSON_BOM,
                    "file starts with a UTF-8 byte-order mark",
                    "",
                    "save without BOM",
                    severity=Severity.WARNING,
                )
                self.text = self.text[1:]
            for pointer in self._source_map.duplicate_keys:
                self.add(
                    R.JSON_DUPLICATE_KEY,
                    f"key {pointer.rsplit('/', 1)[1]!r} appears twice; the later value is used",
                    pointer,
                    "remove one of them",
                    severity=Severity.WARNING,
                    at_key=True,
                )
        return value

    def syntax_error(self, error: JsonSyntaxError) -> None:
        self.findings.append(
            (
                R.JSON_SYNTAX,
                Severity.ERROR,
                error.message,
                "",
                "JSON allows no comments or trailing commas; keys and strings use double quotes",
                False,
            )
        )
        self._error_location = (error.line, error.column)

    # -- stage 2 -----------------------------------------------------------------------------------------------
    def check_schema(self, recipe) -> bool:
        errors = list(recipe_validator().iter_errors(recipe))
        for error in errors:
            explain_schema_error(self, error)
        return not errors

    # -- stage 3 -----------------------------------------------------------------------------------------------
    def check_semantics(self, recipe) -> None:
        if not isinstance(recipe, dict):
            return
        operations = recipe.get("operations")
        if isinstance(operations, list) and not operations:
            self.add(
                R.EMPTY,
                "recipe has no operations: the server accepts it as a plan with no changes, the MCP bridge refuses it",
                "/operations",
                "add an operation",
                severity=Severity.WARNING,
            )
        for pointer, operation in _walk_operations(recipe.get("operations"), "/operations"):
            block = operation.get("block")
            if isinstance(block, str) and BLOCK_PATTERN.fullmatch(block):
                verdict = self.linter.state_verdict(block)
                if verdict is not None:
                    self.add(verdict[0], verdict[1], pointer + "/block", verdict[2])
            if operation.get("type") == "box":
                self.check_box_bounds(operation, pointer)

    def check_bridge(self, recipe: dict) -> None:
        from mcb.recipes.bridge_rules import bridge_findings

        for pointer, message, hint in bridge_findings(recipe):
            self.add(R.MCP_BRIDGE, message, pointer, hint, severity=Severity.WARNING)

    def check_box_bounds(self, box: dict, pointer: str) -> None:
        low, high = box.get("min"), box.get("max")
        if not (isinstance(low, dict) and isinstance(high, dict)):
            return
        for axis in "xyz":
            a, b = low.get(axis), high.get(axis)
            if type(a) is int and type(b) is int and a > b:
                self.add(
                    R.BOX_BOUNDS,
                    f"box min.{axis} {a} is greater than max.{axis} {b}; corners are not "
                    'reordered (server: "Invalid inclusive region bounds")',
                    f"{pointer}/min/{axis}",
                    f"swap the {axis} values of min and max",
                )

    def check_budgets(self, recipe: dict) -> None:
        from mcb.recipes.budget import measure

        limit = self.linter.max_blocks
        try:
            compiled = compile_geometry(recipe, max_blocks=limit)
        except RecipeRejected as rejected:
            if rejected.message != "Invalid inclusive region bounds":  # check_box_bounds has said it, per axis
                self.explain_rejection(recipe, rejected, measure(recipe))
            return
        if not any(f[1] is Severity.ERROR for f in self.findings):
            self.record_facts(compiled)

    def explain_rejection(self, recipe: dict, rejected: RecipeRejected, totals) -> None:
        limit = self.linter.max_blocks
        server = f'(server: "{rejected.message}")'
        if rejected.message == "Recipe scan budget exceeded":
            self.add(
                R.BUDGET_SCAN,
                f"the shapes cost {totals.scan:,} cell visits; the scan budget is {scan_budget(limit):,} {server}",
                rejected.pointer,
                "box = volume, line = steps+1, cylinder = (2r+1)²×height; repeats and overlaps are charged "
                "again each time",
            )
        elif rejected.message == "Recipe block limit exceeded":
            try:
                places = f"{len(compile_geometry(recipe, max_blocks=2_000_000)):,}"
            except RecipeRejected:  # a later shape is too big to count; the server stops at the limit anyway
                places = f"more than {limit:,}"
            self.add(
                R.BUDGET_BLOCKS,
                f"the recipe places {places} distinct blocks; the limit is {limit:,} {server}",
                rejected.pointer,
                "split it into several recipes, or raise {max_plan_blocks} to match the server's max_plan_blocks",
            )
        elif rejected.message == "Expanded operation count exceeds limit":
            self.add(
                R.BUDGET_OPERATIONS,
                f"expanding repeats visits {totals.expanded:,} operations; the limit is 4,096 {server}",
                rejected.pointer,
                "use bigger shapes or fewer repeat iterations",
            )
        elif rejected.message in ("integer overflow", "long overflow"):  # Java's Math.*Exact messages
            self.add(
                R.INT32,
                f"coordinate arithmetic overflows 32 bits here {server}",
                rejected.pointer,
                "keep every coordinate (with repeat offsets added) within int32",
            )
        else:
            self.add(
                R.SERVER_REJECT,
                f"the server would refuse this recipe: {rejected.message}",
                rejected.pointer,
                "see `mcb recipe schema` for the recipe format",
            )

    # -- locating ----------------------------------------------------------------------------------------------
    def diagnostics(self) -> list[Diagnostic]:
        result = []
        for rule, severity, message, pointer, hint, at_key in self.findings:
            if rule == R.JSON_SYNTAX:
                line, column = self._error_location
                result.append(Diagnostic(rule, severity, message, self.name, "", line, column, hint))
                continue
            location = self.source_map.locate(pointer, key=at_key) or (1, 1)
            result.append(Diagnostic(rule, severity, message, self.name, pointer, location[0], location[1], hint))
        result.sort(key=lambda d: (d.line or 0, d.column or 0))
        first = _server_first(result, self.server_first)
        if first is not None:  # the server's (and `mcb recipe compile`'s) first error leads; the rest in file order
            result.remove(first)
            result.insert(0, first)
        return result


_SYNTAX_ERROR = object()


def _server_first(diagnostics: list[Diagnostic], rejected: RecipeRejected | None) -> Diagnostic | None:
    """The error finding that says what the compiler's first rejection says: at its pointer, else inside it (a box's
    bounds are found at min/x), else around it."""
    if rejected is None:
        return None
    errors = [d for d in diagnostics if d.severity is Severity.ERROR]
    at = rejected.pointer
    for candidates in (
        [d for d in errors if d.pointer == at],
        [d for d in errors if at and d.pointer.startswith(at + "/")],
        [d for d in errors if d.pointer and at.startswith(d.pointer + "/")],
    ):
        if candidates:
            return candidates[0]
    return None


def _too_large(name: str, size: int | None = None) -> FileReport:
    """The report of a recipe over the server's request limit: one error, the file not linted further."""
    return FileReport(name, [Diagnostic(R.FILE_SIZE, Severity.ERROR, too_large(size), name, "", 1, 1, TOO_LARGE_HINT)])


def _other_document_kind(value) -> str | None:
    """A terrain recipe, terrain brush or JSON Schema found among the recipes (they share recipes/ directories)."""
    if not isinstance(value, dict) or "operations" in value:
        return None
    if "base_height" in value and "noise" in value:
        return "a terrain recipe"
    if "action" in value and "center" in value:
        return "a terrain brush"
    if "json-schema.org" in str(value.get("$schema", "")):
        return "a JSON Schema"
    return None


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _walk_operations(operations, pointer: str):
    """(pointer, operation) for every object in an operations array, depth first, whatever its validity."""
    if not isinstance(operations, list):
        return
    for index, operation in enumerate(operations):
        if isinstance(operation, dict):
            here = f"{pointer}/{index}"
            yield here, operation
            if operation.get("type") == "repeat":
                yield from _walk_operations(operation.get("operations"), here + "/operations")
