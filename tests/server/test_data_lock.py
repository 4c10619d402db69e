"""One `mcb serve` per data directory: a second one refuses at start (exit 7) and changes nothing; the lock goes
with the first server's process, however it ends (Ctrl-C or kill -9)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from server_rpc import Rpc

from mcb.server.testing import run_server, spawn_server


def serve_again(data_dir, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mcb", "serve", "--data", str(data_dir), "--port", "0", "--tick-ms", "0", *args],
        capture_output=True,
        text=True,
        timeout=20,
    )


def snapshot(data_dir) -> dict[str, bytes]:
    return {
        path.name: path.read_bytes()
        for path in sorted(data_dir.iterdir())
        if path.is_file() and not path.name.startswith(".")
    }


def test_a_second_server_on_the_same_data_refuses_and_changes_nothing(tmp_path):
    data = tmp_path / "d"
    with run_server(data) as first:  # the lock is the kernel's, so the first may be this process (pid below)
        rpc = Rpc(first)
        assert rpc.call("project_context")["project_id"] == "default"
        before = snapshot(data)
        second = serve_again(data, "--project", "other", "--owner", "0f6c3a6e-8a39-4a5b-9d4e-2f3f0d0c0a01")
        assert second.returncode == 7, second.stderr
        assert f"data directory {data} is in use by another mcb serve (pid {os.getpid()})" in second.stderr
        assert "hint: stop that server first" in second.stderr and "Traceback" not in second.stderr
        assert snapshot(data) == before  # its --project/--owner were not saved over the first server's
        assert rpc.call("project_context")["project_id"] == "default"  # the first one serves on
        rpc.close()


def test_the_refusal_in_json_names_its_code(tmp_path):
    data = tmp_path / "d"
    with run_server(data):
        second = serve_again(data, "--json")
    assert second.returncode == 7 and second.stdout == ""
    error = json.loads(second.stderr.strip().splitlines()[-1])["error"]
    assert error["code"] == "data_dir_in_use" and error["exit_code"] == 7
    assert f"(pid {os.getpid()})" in error["message"]


@pytest.mark.parametrize("end", ["stop", "kill"])
def test_the_lock_goes_with_the_first_server(tmp_path, end):
    data = tmp_path / "d"
    first = spawn_server(data)
    getattr(first, end)()  # SIGINT (clean stop) or SIGKILL (no clean-up at all)
    with run_server(data) as again:  # takes the lock the first process held
        assert Rpc(again).call("project_context")["project_id"] == "default"


def test_another_path_to_the_same_directory_is_the_same_lock(tmp_path):
    from mcb.server.app import LocalServer, ServeOptions
    from mcb.server.datalock import DataDirInUse

    data = tmp_path / "d"
    link = tmp_path / "link"
    with run_server(data):
        link.symlink_to(data, target_is_directory=True)
        with pytest.raises(DataDirInUse) as caught:
            LocalServer(link, ServeOptions(port=0))
        assert caught.value.pid == os.getpid()
    LocalServer(link, ServeOptions(port=0)).close()  # released by the first server's close()
