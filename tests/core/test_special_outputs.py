"""Output paths that are not plain files: a FIFO (like /dev/stdout piped to a viewer) is streamed into, not replaced
by a regular file; a symlink keeps pointing where it did and its target gets the new content."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HILL = ROOT / "recipes" / "terrain" / "small-hill.json"
SILO = ROOT / "recipes" / "silo.json"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def read_fifo_in_background(path: Path) -> tuple[threading.Thread, list[bytes]]:
    received: list[bytes] = []

    def reader():
        with open(path, "rb") as handle:  # blocks until the command opens the FIFO for writing
            received.append(handle.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    return thread, received


@pytest.mark.parametrize(
    "command", [("terrain", "preview", "--offline", str(HILL), "-o"), ("recipe", "compile", str(SILO), "--png")]
)
def test_png_into_a_fifo_is_streamed_and_the_fifo_stays(run, tmp_path, command):
    fifo = tmp_path / "viewer.png"
    os.mkfifo(fifo)
    thread, received = read_fifo_in_background(fifo)
    try:
        result = run(*command, fifo)
    finally:
        thread.join(timeout=5)
        if thread.is_alive():  # the command never opened the FIFO: unblock the reader
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
            thread.join(timeout=5)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a regular file"
    assert received and received[0].startswith(PNG_MAGIC)


@pytest.mark.parametrize(
    "command", [("terrain", "preview", "--offline", str(HILL), "-o"), ("recipe", "compile", str(SILO), "--png")]
)
def test_png_through_a_symlink_keeps_the_link(run, tmp_path, command):
    real = tmp_path / "real.png"
    real.write_bytes(b"old")
    link = tmp_path / "latest.png"
    link.symlink_to(real.name)
    result = run(*command, link)
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == real.name
    assert real.read_bytes().startswith(PNG_MAGIC)


def test_fmt_in_place_through_a_symlink_keeps_the_link(run, tmp_path):
    real = tmp_path / "real.json"
    real.write_text(SILO.read_text().replace("\n", " "))
    link = tmp_path / "silo.json"
    link.symlink_to(real.name)
    result = run("recipe", "fmt", "-i", link)
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink()
    assert real.read_text().endswith("}\n") and "\n  " in real.read_text()
