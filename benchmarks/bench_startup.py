"""Whole-process start-up of mcb commands against a minimal two-command Typer app's `--help`, side by side.

    .venv/bin/python benchmarks/bench_startup.py [--repeats 15] [--also-typer DIR]

Rows (targets from issue 12): `mcb schem validate SMALL.schem` <= 1.0x, `mcb context --json` against a live
`mcb serve` <= 1.1x, `mcb --help` <= 1.3x; each divided by `python minimal_typer_app.py --help` run with the
same Typer; the same app running its one-option command is printed beside them as Typer's own floor for a
command that parses a value. Runs are interleaved so the machine's noise hits every row alike; figures are medians.

``--also-typer DIR`` adds the same rows with another Typer release put first on the path (e.g. a
``pip install --no-deps --target DIR typer==0.28.0``), all interleaved in the one run, so two releases compare
under the same load.

``--breakdown`` prints, instead, what `mcb context --json` spends per component (medians of fresh interpreters,
each step timed after the previous one): the floor Typer itself sets, the pydantic import and first schema
build that typer >= 0.29 performs for any command with a non-flag parameter (the root's -q/-v/--server/...
options are such), and what is mcb's own.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import ROOT, report, side_by_side  # noqa: E402  (importing _timing compiles mcb's bytecode)

from mcb.server.testing import spawn_server  # noqa: E402

HERE = Path(__file__).resolve().parent
SMALL = ROOT / "schematics" / "house.schem"
BASELINE = "minimal typer app --help"
# The same app running its one-option command: what Typer itself costs before any command body runs (typer >= 0.29
# imports pydantic and builds a TypeAdapter for a parameter with a value, which `--help` never does).
COMMAND_FLOOR = "minimal typer app hello --name x"
TARGETS = {"mcb schem validate SMALL.schem": 1.0, "mcb context --json": 1.1, "mcb --help": 1.3}


PYTHON = sys.executable  # the interpreter measured (--python): its mcb, Typer and baseline app


def rows(typer_dir: str | None, label: str) -> dict[str, list[str]]:
    """The benchmark's commands; ``typer_dir`` goes first on sys.path (None: the installed Typer)."""
    prefix = f"import sys; sys.path.insert(0, {typer_dir!r}); " if typer_dir else "import sys; "
    # What the console script runs (the Typer app), spelled out so the row measures it whatever the script says.
    mcb = [PYTHON, "-c", prefix + "from mcb.console import main; sys.exit(main())"]
    baseline = [
        PYTHON,
        "-c",
        prefix + f"import runpy; runpy.run_path({str(HERE / 'minimal_typer_app.py')!r}, run_name='__main__')",
        "--help",
    ]
    return {
        f"{BASELINE}{label}": baseline,
        f"{COMMAND_FLOOR}{label}": [*baseline[:-1], "hello", "--name", "x"],
        f"mcb schem validate SMALL.schem{label}": [*mcb, "schem", "validate", str(SMALL)],
        # The one start-up trick left (mcb.console's gc.freeze at exit), measured: the app run without it.
        f"mcb schem validate SMALL.schem without gc.freeze{label}": [
            PYTHON,
            "-c",
            prefix + "from mcb.app import main; sys.exit(main())",
            "schem",
            "validate",
            str(SMALL),
        ],
        f"mcb context --json{label}": [*mcb, "context", "--json"],
        f"mcb --help{label}": [*mcb, "--help"],
        f"mcb --version{label}": [*mcb, "--version"],
    }


def cpu_seconds(argv: list[str], env: dict) -> float:
    """User + system CPU time of one run: on a machine shared with other work it moves far less than wall time."""
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):
        raise RuntimeError(f"{argv} exited with {process.returncode}")
    return usage.ru_utime + usage.ru_stime


def cpu_side_by_side(commands: dict[str, list[str]], repeats: int, env: dict) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeats):
        for name, argv in commands.items():
            samples[name].append(cpu_seconds(argv, env))
    return {name: statistics.median(values) for name, values in samples.items()}


# One fresh interpreter: each step timed after the ones before it, so a module shared with an earlier step
# counts once, where it is first needed. Step names are printed as they are.
BREAKDOWN_PROBE = r"""
import sys, time, json, os
if sys.argv[1]: sys.path.insert(0, sys.argv[1])
T = time.perf_counter
out = {}
def step(name, fn):
    t = T(); fn(); out[name] = (T() - t) * 1000
step("typer (import)", lambda: __import__("typer.main"))
def pyd():
    from typing import Annotated
    from pydantic import BeforeValidator, TypeAdapter
    TypeAdapter(Annotated[int, BeforeValidator(int)])
step("pydantic import + first schema build", pyd)
step("mcb.app (import)", lambda: __import__("mcb.app"))
def settings():
    global S
    from mcb.config import load_settings
    S = load_settings(server=os.environ["MCB_SERVER"], profile=None, timeout=None)
step("mcb.config + load_settings", settings)
step("mcb.client (import: models, transport, httpx)", lambda: __import__("mcb.client"))
def call():
    global R
    from mcb.client import McbClient
    with McbClient.from_settings(S) as client:
        R = client.call("project_context", {})
step("client + first RPC (connect, request, answer)", call)
def model():
    from mcb.client.models import ProjectContext
    json.dumps(ProjectContext.model_validate(R).wire())
step("ProjectContext schema build + validate + dump", model)
print(json.dumps(out))
"""


def breakdown(typer_dirs: dict[str, str | None], repeats: int, env: dict) -> None:
    import json

    runs: dict[str, list[dict]] = {label: [] for label in typer_dirs}
    for _ in range(repeats):  # interleaved: each round runs every release once
        for label, typer_dir in typer_dirs.items():
            done = subprocess.run(
                [PYTHON, "-c", BREAKDOWN_PROBE, typer_dir or ""], env=env, capture_output=True, text=True, check=True
            )
            runs[label].append(json.loads(done.stdout))
    for label, samples in runs.items():
        print(f"\n## mcb context --json, per component{label} (ms, median of {repeats} fresh interpreters)")
        for name in samples[0]:
            print(f"  {statistics.median(s[name] for s in samples):7.1f}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--also-typer", metavar="DIR", help="another Typer release to measure beside the installed one")
    parser.add_argument("--breakdown", action="store_true", help="per-component times of `mcb context --json`")
    parser.add_argument(
        "--python",
        help="measure this interpreter's install (make bench passes a venv holding only "
        "what `pip install mcb` brings: the test extras add click, and httpx then imports its own CLI)",
    )
    options = parser.parse_args()
    global PYTHON
    PYTHON = options.python or sys.executable
    version = subprocess.run(
        [PYTHON, "-c", "import typer; print(typer.__version__)"], capture_output=True, text=True, check=True
    ).stdout.strip()
    sets = {f" (typer {version})": None}
    if options.also_typer:
        sets[" (typer from --also-typer)"] = options.also_typer
    commands = {}
    for label, typer_dir in sets.items():
        commands.update(rows(typer_dir, label))
    with tempfile.TemporaryDirectory() as tmp:
        # tick 0: this measures start-up; at a real tick `mcb context` also waits 1-2 ticks for the server's main
        # thread (bench_pace.py measures that)
        server = spawn_server(Path(tmp) / "data", tick_ms=0)
        try:
            env = {
                **os.environ,
                "MCB_SERVER": server.url,
                "MCB_AGENT_TOKEN": server.agent_token,
                "MCB_PLAYER_ID": "console",
                "NO_COLOR": "1",
            }
            if options.breakdown:
                breakdown(sets, options.repeats, env)
                return
            walls = side_by_side(commands, repeats=options.repeats, env=env)
            cpus = cpu_side_by_side(commands, repeats=options.repeats, env=env)
        finally:
            server.stop()
    for label in sets:
        for kind, medians in (("wall", walls), ("CPU (user+sys)", cpus)):
            mine = {name: value for name, value in medians.items() if name.endswith(label)}
            report(
                f"start-up{label}: {kind} time, whole process, median of {options.repeats}, interleaved",
                mine,
                BASELINE + label,
            )
            for name, target in TARGETS.items():
                ratio = medians[name + label] / medians[BASELINE + label]
                verdict = "ok" if ratio <= target else "over"
                print(f"  {name} / {BASELINE} = {ratio:.2f}x (target <= {target}x: {verdict})")
            for name in TARGETS:
                ratio = medians[name + label] / medians[COMMAND_FLOOR + label]
                print(f"  {name} / {COMMAND_FLOOR} = {ratio:.2f}x (context: Typer's own floor for a command)")


if __name__ == "__main__":
    main()
