"""Every command in the README's ```sh blocks runs as written, in a scratch copy of the repository, against a live
`mcb serve`, and exits with the code its comment documents.

The conventions (also stated in an HTML comment at the top of README.md, so whoever adds an example sees them):

* a line's trailing comment that starts with ``exit N`` documents exit code N (``# exit 1: did you mean ...``);
  every other command must exit 0;
* a command ending in ``&``, or whose comment starts with ``runs until Ctrl-C``, is a server: it must come up (print
  its ``listening on`` line within 30 s, or keep running) and stop cleanly on Ctrl-C (SIGINT);
* ``OPERATION_ID``, ``ASSET_ID`` and ``UUID`` are placeholders, filled in from the server's state at that point
  (the newest operation, the newest library schematic, a fixed player UUID);
* a block right after ``<!-- readme-test: skip -->`` is not run (``make demo`` / ``make test``: the demo and CI run
  those).

Commands run in README order in one scratch copy with one server, because later examples use what earlier ones
made (a plan file, an operation, an asset). One test runs them all and lists every failure.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest
from checkout_kit import checkout_copy
from interrupt_kit import INTERRUPTIBLE

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SKIP_MARK = "<!-- readme-test: skip -->"
COMMAND_TIMEOUT = 180
CAMERA_UUID = "7d2f9a64-3c1e-4b8a-9f5d-1a2b3c4d5e6f"
PLACEHOLDERS = ("OPERATION_ID", "ASSET_ID", "UUID")


@dataclass(frozen=True)
class Example:
    line: int  # 1-based line of README.md where the command starts
    command: str
    comment: str

    @property
    def expected_exit(self) -> int:
        match = re.match(r"exit (\d+)\b", self.comment)
        return int(match.group(1)) if match else 0

    @property
    def long_running(self) -> bool:
        return self.command.endswith("&") or self.comment.startswith("runs until Ctrl-C")


def split_comment(line: str) -> tuple[str, str]:
    """(command, comment): the comment starts at the first ``#`` outside quotes that follows whitespace."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip(), line[index + 1 :].strip()
    return line.rstrip(), ""


def readme_examples(text: str) -> list[Example]:
    examples: list[Example] = []
    lines = text.splitlines()
    in_block = skip = False
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(lines, 1):
        stripped = raw.strip()
        if not in_block:
            if stripped == SKIP_MARK:
                skip = True
            elif stripped.startswith("```"):
                in_block, block_skip = True, skip or stripped != "```sh"
                skip = False
            elif stripped:
                skip = False
            continue
        if stripped.startswith("```"):
            in_block = False
            continue
        if block_skip:
            continue
        if not pending:
            if not stripped or stripped.startswith("#"):
                continue
            start = number
        command, comment = split_comment(raw)
        if command.endswith("\\"):  # continued on the next line; a comment may only follow the last part
            pending.append(command[:-1].strip())
            continue
        pending.append(command.strip())
        examples.append(Example(start, " ".join(pending), comment))
        pending = []
    return examples


def test_examples_are_found_with_their_documented_exit_codes():
    text = "\n".join(
        [
            "```sh",
            "mcb block check oak_stair   # exit 1: did you mean",
            "mcb schem info 'a # b.schem'  # fine",
            "mcb config init --server-url URL \\",
            "  --player-id console   # profile",
            "```",
            SKIP_MARK,
            "```sh",
            "make test",
            "```",
            "```json",
            "{}",
            "```",
            "```sh",
            "mcb serve &   # another terminal",
            "mcb serve   # runs until Ctrl-C; data in ...",
            "```",
        ]
    )
    found = readme_examples(text)
    assert [(e.line, e.command, e.expected_exit, e.long_running) for e in found] == [
        (2, "mcb block check oak_stair", 1, False),
        (3, "mcb schem info 'a # b.schem'", 0, False),
        (4, "mcb config init --server-url URL --player-id console", 0, False),
        (15, "mcb serve &", 0, True),
        (16, "mcb serve", 0, True),
    ]


def test_the_readme_has_examples():
    examples = readme_examples(README.read_text(encoding="utf-8"))
    assert len(examples) > 20 and any(e.expected_exit for e in examples)


def _scratch_copy(target: Path) -> Path:
    """The README is walked on a fresh clone: tracked files only, not what earlier walks left (out/, the batch's
    state file, which would resume against another server)."""
    return checkout_copy(target, ROOT)


def _environment(home: Path, server=None) -> dict:
    env = {k: v for k, v in os.environ.items() if not (k.startswith("MCB_") or k.startswith("XDG_"))}
    env.update(
        HOME=str(home),
        NO_COLOR="1",
        COLUMNS="100",
        TERM="dumb",
        PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""),
    )
    env.pop("GITHUB_ACTIONS", None)
    if server is not None:
        env.update(
            MCB_SERVER=server.url,
            MCB_TOKEN=server.admin_token,
            MCB_AGENT_TOKEN=server.agent_token,
            MCB_PLAYER_ID="console",
        )
    return env


def _fill_placeholders(command: str, env: dict, cwd: Path) -> str:
    def ask(*args) -> dict:
        done = subprocess.run(["mcb", *args, "--json"], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    for name in PLACEHOLDERS:
        if not re.search(rf"\b{name}\b", command):
            continue
        if name == "OPERATION_ID":
            value = ask("context")["operations"][0]["operation_id"]  # most recent first (protocol)
        elif name == "ASSET_ID":
            value = ask("asset", "list")["assets"][-1]["assetId"]
        else:
            value = CAMERA_UUID
        command = re.sub(rf"\b{name}\b", value, command)
    return command


def _run_server_example(example: Example, command: str, cwd: Path, home: Path) -> str | None:
    """Start a long-running example; None when it came up and stopped cleanly on Ctrl-C, else what went wrong."""
    import threading

    command = command.rstrip("&").strip()
    env = _environment(home)  # its own HOME: a default `mcb serve` gets a fresh data directory
    process = subprocess.Popen(
        ["bash", "-c", f"exec {command}"],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        **INTERRUPTIBLE,
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        for line in process.stderr:
            lines.append(line)
            if "listening on" in line:
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    ready.wait(timeout=30)
    if not ready.is_set():
        process.kill()
        process.wait(timeout=10)
        reader.join(timeout=5)
        err = "".join(lines).strip()
        if "Address already in use" in err:  # another program holds the default port: say so, do not fail
            warnings.warn(f"README line {example.line} not tried: its port is taken here ({err[-200:]})", stacklevel=2)
            return None
        return f"did not come up within 30 s (exit {process.returncode}): {err[-300:]}"
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
        return "did not stop on Ctrl-C within 20 s"
    reader.join(timeout=5)
    if process.returncode not in (0, 130):
        return f"Ctrl-C gave exit {process.returncode}: {''.join(lines).strip()[-300:]}"
    return None


def _files(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*") if path.is_file()}


def _not_ignored(repo: Path, paths: set[str]) -> list[str]:
    """The paths .gitignore does not cover (what `git status` would list as untracked in a fresh clone)."""
    subprocess.run(["git", "init", "-q", str(repo)], check=True, capture_output=True)
    ignored = subprocess.run(
        ["git", "-C", str(repo), "check-ignore", "--no-index", "--stdin"],
        input="\n".join(sorted(paths)),
        capture_output=True,
        text=True,
    ).stdout.split("\n")
    return sorted(paths - set(ignored))


@pytest.mark.slow  # ~50 commands, each a fresh mcb process
def test_every_readme_command_runs_as_documented(tmp_path):
    from mcb.server.testing import run_server

    repo = _scratch_copy(tmp_path / "repo")
    (tmp_path / "shared").symlink_to(ROOT.parent / "shared")  # ../shared/corpus, as beside the real checkout
    before = _files(repo)
    home = tmp_path / "home"
    data = home / ".local" / "share" / "mcb" / "server"  # `mcb serve`'s default data dir for this HOME
    failures: list[str] = []
    # A new `mcb serve` world, as the reader's: rolling terrain around a flat build site (`--ground hills`).
    with run_server(data, tick_ms=1, ground="hills") as server:
        env = _environment(home, server)
        for index, example in enumerate(readme_examples(README.read_text(encoding="utf-8"))):
            command = _fill_placeholders(example.command, env, repo)
            if example.long_running:
                problem = _run_server_example(example, command, repo, tmp_path / f"serve-home-{index}")
                if problem:
                    failures.append(f"README:{example.line}: {example.command}\n    {problem}")
                continue
            done = subprocess.run(
                ["bash", "-c", "set -o pipefail; " + command],
                cwd=repo,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=COMMAND_TIMEOUT,
            )
            problems = []
            if done.returncode != example.expected_exit:
                problems.append(f"exit {done.returncode}, documented {example.expected_exit}")
            if "Traceback" in done.stderr:
                problems.append("a traceback")
            if problems:
                failures.append(
                    f"README:{example.line}: {example.command}\n    "
                    + ", ".join(problems)
                    + f"\n    stderr: {done.stderr.strip()[-400:]}"
                )
    assert not failures, "README examples that do not work as written:\n" + "\n".join(failures)
    left = _not_ignored(repo, _files(repo) - before)
    assert not left, f"README examples leave files git would list as untracked in a fresh clone: {left}"


@pytest.mark.parametrize("xdg", [False, True], ids=["home", "XDG_DATA_HOME"])
def test_the_profiles_token_file_is_the_one_mcb_serve_prints(tmp_path, xdg):
    """The README's `mcb config init --token-file ...` names the file a default `mcb serve` prints as its
    `tokens:` line, with and without XDG_DATA_HOME."""
    import shlex

    init = next(e for e in readme_examples(README.read_text(encoding="utf-8")) if "--token-file" in e.command)
    home = tmp_path / "home"
    home.mkdir()
    env = _environment(home)
    if xdg:
        env["XDG_DATA_HOME"] = str(tmp_path / "xdg-data")
    words = shlex.split(init.command)  # the quotes go, the ${...} stays: bash expands it as the reader's shell does
    named = {
        subprocess.run(
            ["bash", "-c", f'printf %s "{words[words.index(flag) + 1]}"'], env=env, capture_output=True
        ).stdout.decode()
        for flag in ("--token-file", "--agent-token-file")
    }
    process = subprocess.Popen(
        ["mcb", "serve", "--port", "0"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        printed = next(line for line in process.stderr if line.startswith("tokens: "))
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=20)
    assert named == {printed.split()[1]}
    assert Path(printed.split()[1]).is_file()
