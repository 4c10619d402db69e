"""`mcb serve` as a user runs it: loopback by default, explicit opt-in (with a warning) for other addresses,
clean Ctrl-C, data directory defaults, a one-line readiness announcement under --json."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys

from interrupt_kit import INTERRUPTIBLE
from server_rpc import Rpc

from mcb.server.testing import run_server, spawn_server


def test_non_loopback_host_needs_allow_remote(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mcb", "serve", "--data", str(tmp_path / "d"), "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "non-loopback" in result.stderr and "Traceback" not in result.stderr


def test_allow_remote_warns_and_serves(tmp_path):
    handle = spawn_server(tmp_path / "d", extra_args=("--host", "0.0.0.0", "--allow-remote"))
    try:
        handle.url = handle.url.replace("0.0.0.0", "127.0.0.1")
        client = Rpc(handle)
        assert client.call("project_context")["project_id"] == "default"
        client.close()
    finally:
        assert handle.stop() == 0
    log = handle.stderr_path.read_text()
    assert "warning" in log.lower() and "non-loopback" in log


def test_default_data_dir_is_the_user_data_dir(tmp_path):
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")}
    process = subprocess.Popen(
        [sys.executable, "-m", "mcb", "serve", "--port", "0", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        text = ""
        while not text.rstrip().endswith("}"):
            text += process.stdout.readline()
        info = json.loads(text)
        assert info["url"].startswith("http://127.0.0.1:")
        assert info["data_dir"] == str(tmp_path / "xdg" / "mcb" / "server")
        assert info["token_file"] == str(tmp_path / "xdg" / "mcb" / "server" / "tokens.json")
        assert os.stat(info["token_file"]).st_mode & 0o777 == 0o600
    finally:
        process.send_signal(2)
        process.wait(timeout=20)
    assert process.returncode == 0
    assert "stopped" in process.stderr.read()


def test_port_in_use_and_corrupt_config_are_clean_errors(tmp_path):
    with run_server(tmp_path / "a") as running:  # another mcb serve holds the port
        port = running.url.rsplit(":", 1)[1]
        busy = subprocess.run(
            [sys.executable, "-m", "mcb", "serve", "--data", str(tmp_path / "b"), "--port", port],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert busy.returncode == 6
        assert "cannot listen on 127.0.0.1" in busy.stderr and "Traceback" not in busy.stderr
        assert not (tmp_path / "b").exists()  # refused before the data folder was made
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "server.json").write_text("{not json")
    corrupt = subprocess.run(
        [sys.executable, "-m", "mcb", "serve", "--data", str(tmp_path / "c"), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert corrupt.returncode == 3
    assert "cannot use data directory" in corrupt.stderr and "Traceback" not in corrupt.stderr


def _serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mcb", "serve", "--port", "0", *args], capture_output=True, text=True, timeout=60
    )


def test_an_unusable_token_file_is_refused_and_left_untouched(tmp_path):
    for content, wrong in (
        ('{"admin_token": 5}', "admin_token must be a string, not int"),
        ('{"admin_token": "', "is not valid JSON"),
        ("[1, 2]", "must hold a JSON object"),
    ):
        data = tmp_path / "d"
        data.mkdir(exist_ok=True)
        tokens = data / "tokens.json"
        tokens.write_text(content)
        tokens.chmod(0o600)
        result = _serve("--data", str(data))
        assert result.returncode == 3, result.stderr
        assert str(tokens) in result.stderr and wrong in result.stderr
        assert "hint: fix tokens.json or move it away" in result.stderr and "Traceback" not in result.stderr
        assert tokens.read_text() == content


def test_a_file_as_data_dir_and_an_unresolvable_host_say_so(tmp_path):
    afile = tmp_path / "README.md"
    afile.write_text("hello")
    result = _serve("--data", str(afile))
    assert result.returncode == 3
    assert "is a file, not a directory" in result.stderr and "Errno" not in result.stderr
    assert afile.read_text() == "hello"
    result = _serve("--data", str(tmp_path / "d"), "--host", "nosuch.invalid", "--allow-remote")
    assert result.returncode == 6
    assert "nosuch.invalid: the host name does not resolve" in result.stderr
    assert "--port 0" not in result.stderr and "Traceback" not in result.stderr


def test_a_busy_port_is_refused_before_the_default_data_folder_is_made(tmp_path):
    """A new user's second `mcb serve` (or another program on 8765): one line, exit 6, and no data folder left."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = str(holder.getsockname()[1])
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")}
        result = subprocess.run(
            [sys.executable, "-m", "mcb", "serve", "--port", port], env=env, capture_output=True, text=True, timeout=60
        )
    assert result.returncode == 6
    lines = result.stderr.strip().splitlines()
    assert lines[0] == f"error: cannot listen on 127.0.0.1:{port}: Address already in use"
    assert lines[1] == (
        f"hint: another program holds port {port} (another mcb serve?): stop it, or start this one "
        "with --port 0 (any free port)"
    )
    assert len(lines) == 2
    assert not (tmp_path / "xdg").exists()


def test_an_existing_data_folder_in_use_is_named_before_the_port(tmp_path):
    """Two `mcb serve` on the same folder and port: the refusal names the folder's server (exit 7), not the port."""
    with run_server(tmp_path / "d") as first:  # holds the folder's lock and the port
        port = first.url.rsplit(":", 1)[1]
        second = _serve_on(port, "--data", str(tmp_path / "d"))
        assert second.returncode == 7, second.stderr
        assert "is in use by another mcb serve" in second.stderr


def _serve_on(port: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mcb", "serve", "--port", port, *args], capture_output=True, text=True, timeout=60
    )


def test_serve_json_ready_announcement_is_one_json_line(tmp_path):
    """As its help says, so a script can `read` it while the server runs."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcb",
            "serve",
            "--data",
            str(tmp_path / "d"),
            "--port",
            "0",
            "--tick-ms",
            "5",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
        **INTERRUPTIBLE,
    )
    try:
        first_line = process.stdout.readline()  # what `read -r line` or `head -1` gets
        info = json.loads(first_line)
        assert set(info) == {"url", "data_dir", "token_file"}
        assert info["url"].startswith("http://127.0.0.1:")
    finally:
        process.send_signal(signal.SIGINT)
        remaining, _ = process.communicate(timeout=30)
    assert process.returncode == 0
    assert remaining == ""  # nothing else on stdout
