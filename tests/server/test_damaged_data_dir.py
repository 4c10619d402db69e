"""`mcb serve` on a data directory with damaged files: a setup error naming the directory, never a traceback."""

from __future__ import annotations

import pytest
from hostile_kit import DEEP, one_error_line


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("server.json", b"[" * DEEP),
        ("server.json", b"[1]"),
        ("server.json", b'{"max_plan_blocks": "x"}'),
        ("server.json", b"\xff\xfe"),
        ("journal.sqlite3", b"not a database" * 100),
    ],
)
def test_damaged_data_dir_is_refused(run, tmp_path, name, content):
    data = tmp_path / "data"
    data.mkdir()
    (data / name).write_bytes(content)
    result = run("serve", "--data", data, "--port", "0")
    assert result.exit_code == 3
    assert str(data) in one_error_line(result)
    assert (data / name).read_bytes() == content
