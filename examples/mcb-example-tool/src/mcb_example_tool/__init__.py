"""An example mcb mcp extension: `example_echo` and `example_count`."""

from __future__ import annotations

import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from mcb.mcp import Extension, ToolOptions, fail, ok


class EchoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=256, description="What to echo back.")


class CountArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    directory: str = Field(min_length=1, max_length=1024, description="Existing folder to write step files into.")
    count: int = Field(ge=1, le=1000, description="How many steps (one file each).")
    step_ms: int = Field(default=0, ge=0, le=2000, description="Pause after each step, in milliseconds.")


def echo(args: EchoArgs):
    return ok({"text": args.text})


def count(args: CountArgs, ctx):
    folder = Path(args.directory)
    if not folder.is_dir():
        return fail(
            "not_found", f"{args.directory} is not a folder", remedy="pass an existing folder", field="directory"
        )
    written = []
    for step in range(1, args.count + 1):
        ctx.check_cancelled()
        path = folder / f"step-{step:04d}.txt"
        path.write_text(f"step {step}\n")
        ctx.created(path)
        written.append(path.name)
        ctx.progress(step, args.count, f"step {step} of {args.count}")
        if args.step_ms:
            time.sleep(args.step_ms / 1000)
    return ok({"written": written}, hint="the files stay; delete them when done")


class ExampleTools(Extension):
    def register(self, registry, host):
        registry.add(
            "example_echo",
            echo,
            ToolOptions("Echo the text back. Use it to check that extensions load.")
            .title("Echo text")
            .input_model(EchoArgs)
            .read_only()
            .idempotent()
            .open_world(False),
        )
        registry.add(
            "example_count",
            count,
            ToolOptions(
                "Write COUNT small files into DIRECTORY, one per step, with progress; a cancel stops at the next step "
                "and removes the files this call wrote."
            )
            .title("Count in files")
            .input_model(CountArgs)
            .destructive(False)
            .open_world(False)
            .cancellable()
            .group("examples"),
        )
