"""Lay out distributions in a site directory the way an installer does (package + .dist-info with
entry_points.txt), so `mcb mcp` finds them through importlib.metadata with PYTHONPATH pointing there."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "mcb-example-tool"


def add_distribution(
    site: Path,
    name: str,
    version: str,
    entry_points: dict[str, str],
    modules: dict[str, str] | None = None,
    packages: dict[str, Path] | None = None,
) -> None:
    site.mkdir(parents=True, exist_ok=True)
    for module, source in (modules or {}).items():
        (site / f"{module}.py").write_text(source)
    for package, source_dir in (packages or {}).items():
        shutil.copytree(source_dir, site / package, ignore=shutil.ignore_patterns("__pycache__"))
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    lines = ["[mcb.tools]"] + [f"{key} = {value}" for key, value in entry_points.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    (info / "RECORD").write_text("")


def install_example(site: Path) -> None:
    """The example extension installed by pip from its own folder, as a user installs it (into ``site``, which the
    test puts on the path of the ``mcb mcp`` it starts, so the test venv itself is left as it was)."""
    import subprocess
    import sys

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-compile",
            "--target",
            str(site),
            str(EXAMPLE),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert any(site.glob("mcb_example_tool-*.dist-info/entry_points.txt"))


DEMO = """
import os, sys
from pathlib import Path
from pydantic import BaseModel, ConfigDict
from mcb.mcp import Extension, ToolOptions, ok

marker = os.environ.get("DEMO_IMPORT_MARKER")
if marker:
    Path(marker).write_text("imported")


class Text(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = "hi"


class Slow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    directory: str


def slow(args, ctx):
    import time
    for step in range(100):
        ctx.check_cancelled()
        path = Path(args.directory) / f"slow-{step:03d}.txt"
        path.write_text("x")
        ctx.created(path)
        time.sleep(0.1)
    return ok({"finished": True})


def stuck(args):
    import time
    time.sleep(1.5)  # checks nothing: it cannot be stopped, only its answer dropped
    return ok({"finished": True})


class DemoTools(Extension):
    def register(self, registry, host):
        registry.add("demo_slow", slow, ToolOptions("Takes 10 s unless stopped.").input_model(Slow)
                     .destructive(False).cancellable().timeout_ms(1000))
        registry.add("demo_stuck", stuck, ToolOptions("Sleeps 1.5 s and cannot be cancelled.").read_only()
                     .timeout_ms(1000))
        registry.add("demo_echo", lambda args: ok({"text": args.text, "from": "__NAME__"}),
                     ToolOptions("Echo text.").input_model(Text).read_only().idempotent().open_world(False))
        registry.add("demo_boom", self.boom, ToolOptions("Always raises.").read_only().open_world(False))
        registry.add("demo_print", self.noisy, ToolOptions("Prints to stdout, then answers.").read_only())
        registry.add("demo_both", lambda args: ok(), ToolOptions("Marked both ways.").read_only().destructive())
        registry.add("demo_plain", lambda args: 42, ToolOptions("Returns a non-result."))
        registry.add("demo_leak", self.leak, ToolOptions("Raises with the agent token in its text.").read_only())

    @staticmethod
    def leak(args):
        raise RuntimeError("server refused token " + os.environ.get("MCB_AGENT_TOKEN", ""))

    @staticmethod
    def boom(args):
        raise RuntimeError("kaboom")

    @staticmethod
    def noisy(args):
        print("stray print from an extension")
        sys.stdout.flush()
        os.write(1, b"stray bytes on fd 1\\n")
        return ok({"printed": True})
"""


def demo_module(name: str = "demo one") -> str:
    return DEMO.replace("__NAME__", name)
