"""The batch file: ``{"version": 1, "steps": [...]}``, validated per step kind, and its JSON Schema."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mcb.batch.kinds import STEP_KINDS, BaseStep, UndoStep
from mcb.errors import InputError

SCHEMA_ID = "https://mcb.invalid/schemas/batch.schema.json"


@dataclass
class Batch:
    path: Path
    steps: list[BaseStep]
    raw_steps: list[dict]

    def definition_hash(self, index: int) -> str:
        text = json.dumps(self.raw_steps[index], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load_batch(path: Path) -> Batch:
    from mcb.fileio import parse_json_input, read_input_text

    data = parse_json_input(read_input_text(path, "batch file"), "batch file", str(path))
    return parse_batch(data, Path(path))


def parse_batch(data: Any, path: Path) -> Batch:
    if not isinstance(data, dict):
        raise InputError(f"{path}: a batch file is a JSON object with `version` and `steps`")
    unknown = sorted(set(data) - {"version", "steps", "$schema", "description"})
    if unknown:
        raise InputError(f"{path}: unknown top-level key(s) {', '.join(unknown)}")
    if data.get("version") != 1 or isinstance(data.get("version"), bool):
        raise InputError(f"{path}: `version` must be 1")
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise InputError(f"{path}: `steps` must be a non-empty array")
    steps: list[BaseStep] = []
    seen: set[str] = set()
    for index, raw in enumerate(raw_steps):
        where = f"{path}: steps[{index}]"
        if not isinstance(raw, dict):
            raise InputError(f"{where} must be an object")
        kind_name = raw.get("kind")
        kind = STEP_KINDS.get(kind_name) if isinstance(kind_name, str) else None  # a list or object is unhashable
        if kind is None:
            raise InputError(
                f"{where}: unknown kind {raw.get('kind')!r}", hint="kinds: " + ", ".join(sorted(STEP_KINDS))
            )
        try:
            step = kind.model.model_validate(raw)
        except ValidationError as error:
            first = error.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "(step)"
            raise InputError(f"{where}.{field}: {first['msg']}") from None
        if step.name in seen:
            raise InputError(f"{where}: duplicate step name {step.name!r}")
        if isinstance(step, UndoStep) and step.step not in seen:
            raise InputError(f"{where}: undo refers to {step.step!r}, which is not an earlier step")
        seen.add(step.name)
        steps.append(step)
    return Batch(path=Path(path), steps=steps, raw_steps=raw_steps)


def batch_json_schema() -> dict:
    """JSON Schema (draft 2020-12) of the batch format, built from the registered step kinds."""
    defs: dict[str, Any] = {}
    variants = []
    for name in sorted(STEP_KINDS):
        schema = STEP_KINDS[name].model.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        title = schema.get("title", name)
        defs[title] = schema
        variants.append({"$ref": f"#/$defs/{title}"})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "mcb batch file",
        "description": "Steps run in order by `mcb batch FILE`; progress is recorded in FILE's .state.json.",
        "type": "object",
        "additionalProperties": False,
        "required": ["version", "steps"],
        "properties": {
            "$schema": {"type": "string"},
            "description": {"type": "string"},
            "version": {"const": 1},
            "steps": {"type": "array", "minItems": 1, "items": {"oneOf": variants}},
        },
        "$defs": defs,
    }


def batch_schema_text() -> str:
    """The text of ``recipes/batch.schema.json`` (a test keeps the file in sync)."""
    return json.dumps(batch_json_schema(), indent=2) + "\n"
