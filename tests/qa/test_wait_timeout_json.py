"""When waiting runs out (exit 6), a script finds the operation to resume in the JSON error, not only in prose."""

from __future__ import annotations

import json
from pathlib import Path

BIG_BOX = {
    "version": 1,
    "operations": [
        {
            "type": "box",
            "min": {"x": 0, "y": 64, "z": 0},
            "max": {"x": 15, "y": 79, "z": 15},
            "block": "minecraft:stone",
        }
    ],
}


def test_build_wait_timeout_error_carries_the_operation_id(slow_mcb, tmp_path: Path):
    recipe = tmp_path / "box.json"
    recipe.write_text(json.dumps(BIG_BOX))
    result = slow_mcb("build", recipe, "--wait-timeout", "0.1", "--json")
    assert result.exit_code == 6, result.stderr
    assert result.stdout == ""
    error = json.loads(result.stderr.strip().splitlines()[-1])["error"]
    operation_id = error["details"]["operation_id"]
    resumed = slow_mcb("status", operation_id, "--json")
    assert resumed.exit_code == 0 and resumed.json()["operation_id"] == operation_id
