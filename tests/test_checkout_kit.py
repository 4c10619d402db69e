"""The scratch copy the README and docs tests start from holds what a fresh clone holds: a user's own leftovers
(git-ignored files such as examples/castle.batch.state.json or out/) stay behind."""

from __future__ import annotations

import subprocess

from checkout_kit import checkout_copy


def test_the_copy_has_tracked_and_new_files_but_not_ignored_ones(tmp_path):
    repo = tmp_path / "repo"
    (repo / "examples").mkdir(parents=True)
    (repo / ".gitignore").write_text("examples/*.state.json\n/out/\n")
    (repo / "examples" / "castle.batch.json").write_text("{}")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True)
    (repo / "examples" / "castle.batch.state.json").write_text("{}")  # left by a README walk
    (repo / "out").mkdir()
    (repo / "out" / "tower.png").write_bytes(b"png")
    (repo / "new.md").write_text("not added yet")  # a file being written: kept
    copied = checkout_copy(tmp_path / "copy", repo)
    assert sorted(str(p.relative_to(copied)) for p in copied.rglob("*") if p.is_file()) == [
        ".gitignore",
        "examples/castle.batch.json",
        "new.md",
    ]
