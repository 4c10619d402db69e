"""The batch JSON Schema is generated from the step registry, and the documented example is valid."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from mcb.batch.model import batch_schema_text, parse_batch
from mcb.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "recipes" / "batch.schema.json").read_text())


def test_checked_in_schema_matches_the_registry():
    assert (ROOT / "recipes" / "batch.schema.json").read_text() == batch_schema_text(), (
        "regenerate: see docs/batch.md, 'Adding a step kind'"
    )


def test_help_and_docs_name_every_step_kind(cli):
    """`mcb batch --help` opens with every registered kind (generated from the registry; the root listing's copy is
    kept equal to it by tests/test_cli_docs.py), and docs/batch.md's table has a row for each."""
    from mcb.batch.kinds import STEP_KINDS

    summary = " ".join(cli("batch", "--help", env={"COLUMNS": "80"}).stdout.split("Progress goes")[0].split())
    assert "recipe, import, terrain_tile, schematic and undo steps." in summary
    assert all(kind in summary for kind in STEP_KINDS)
    table = (ROOT / "docs" / "batch.md").read_text().split("| kind | fields |")[1].split("\n\n")[0]
    rows = re.findall(r"^\| `(\w+)` \|", table, re.M)
    assert sorted(rows) == sorted(STEP_KINDS)


def doc_example() -> dict:
    text = (ROOT / "docs" / "batch.md").read_text()
    return json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))


def test_documented_example_is_valid_for_schema_and_loader():
    example = doc_example()  # the shipped examples/castle.batch.json (tests/test_shipped_examples.py)
    jsonschema.Draft202012Validator(SCHEMA).validate(example)
    batch = parse_batch(example, ROOT / "examples" / "castle.batch.json")
    assert [s.kind for s in batch.steps] == ["recipe", "recipe", "recipe", "undo"]
    # the import step the text shows on its own line
    text = (ROOT / "docs" / "batch.md").read_text()
    step = json.loads(re.search(r'`(\{"name": "gate", "kind": "import".*?\})`', text).group(1))
    with_import = {**example, "steps": [*example["steps"], step]}
    jsonschema.Draft202012Validator(SCHEMA).validate(with_import)
    imported = parse_batch(with_import, ROOT / "examples" / "castle.batch.json").steps[-1]
    assert imported.kind == "import" and imported.target == (20, 64, -20)


@pytest.mark.parametrize(
    "step",
    [
        {"name": "a", "kind": "recipe"},
        {"name": "a", "kind": "recipe", "recipe": "r.json", "colour": "red"},
        {"name": "a b", "kind": "recipe", "recipe": "r.json"},
        {"name": "a", "kind": "import", "asset": "x", "target": [1, 2], "rotation": 0},
        {"name": "a", "kind": "import", "asset": "x", "target": [1, 2, 3], "rotation": 45},
        {"name": "a", "kind": "paint"},
    ],
)
def test_schema_and_loader_agree_on_invalid_steps(step):
    data = {"version": 1, "steps": [step]}
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(data)
    with pytest.raises(InputError):
        parse_batch(data, Path("x.json"))
