"""Extensions through the `mcb.tools` entry points (MCP-63..68, checklist 53-58) and the example package."""

from __future__ import annotations

import json

from extkit import add_distribution, demo_module
from mcpkit import refusal_of

BROKEN_IMPORT = "raise ImportError('missing dependency xyz')\n"
HALF = """
from mcb.mcp import Extension, ToolOptions, ok
class Half(Extension):
    def register(self, registry, host):
        registry.add("half_one", lambda args: ok(), ToolOptions("One tool."))
        raise RuntimeError("register gave up")
"""
GREEDY = """
from mcb.mcp import Extension, ToolOptions, ok
class Greedy(Extension):
    def register(self, registry, host):
        registry.add("schem_x", lambda args: ok(), ToolOptions("Takes a reserved name."))
"""


def start(mcp_process, site, *args, env=None):
    mcp = mcp_process(*args, env={"PYTHONPATH": str(site), **(env or {})})
    mcp.initialize()
    return mcp


def names(mcp) -> list[str]:
    return [tool["name"] for tool in mcp.request("tools/list")["result"]["tools"]]


def extensions(mcp) -> dict[str, dict]:
    text = mcp.request("resources/read", {"uri": "mcb://extensions"})["result"]["contents"][0]["text"]
    return {item["name"]: item for item in json.loads(text)["extensions"]}


def test_the_example_package_installed_is_listed_and_callable(mcp_process, example_site, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    mcp = start(mcp_process, example_site)
    listed = names(mcp)
    assert listed[-2:] == ["example_count", "example_echo"] and listed[34] == "tool_batch"
    echoed = mcp.call("example_echo", {"text": "hello"})["result"]
    assert echoed["structuredContent"] == {"text": "hello"} and echoed["isError"] is False
    counted = mcp.call("example_count", {"directory": str(work), "count": 2})["result"]["structuredContent"]
    assert counted == {"written": ["step-0001.txt", "step-0002.txt"], "hint": "the files stay; delete them when done"}
    report = extensions(mcp)["example"]
    assert report["status"] == "loaded" and report["distribution"] == "mcb-example-tool"
    assert report["tools"] == ["example_echo", "example_count"]


def test_extension_tools_go_through_the_same_pipeline(mcp_process, tmp_path):
    site = tmp_path / "site"
    add_distribution(site, "demo-tools", "1.0", {"demo": "mcb_demo:DemoTools"}, {"mcb_demo": demo_module()})
    mcp = start(mcp_process, site)
    refused = refusal_of(mcp.call("demo_echo", {"txt": "x"})["result"]["structuredContent"]["error"])
    assert refused["code"] == "invalid_argument" and refused["did_you_mean"] == {"txt": "text"}
    boom = mcp.call("demo_boom")["result"]
    assert boom["isError"] and boom["structuredContent"]["error"]["code"] == "internal"
    assert mcp.call("demo_plain")["result"]["structuredContent"]["error"]["code"] == "internal"
    assert mcp.call("demo_echo", {"text": "after"})["result"]["structuredContent"]["text"] == "after"
    printed = mcp.call("demo_print")["result"]
    assert printed["structuredContent"] == {"printed": True}
    tools = {tool["name"]: tool for tool in mcp.request("tools/list")["result"]["tools"]}
    both = tools["demo_both"]["annotations"]
    assert (both["readOnlyHint"], both["destructiveHint"]) == (False, True)
    plain = tools["demo_plain"]["annotations"]  # MCP's defaults when nothing is marked
    assert (plain["readOnlyHint"], plain["destructiveHint"], plain["idempotentHint"], plain["openWorldHint"]) == (
        False,
        True,
        False,
        True,
    )
    assert mcp.close() == 0
    err = mcp.stderr()
    assert "kaboom" in err and "Traceback" in err  # the traceback goes to stderr only
    assert "stray print from an extension" in err and "stray bytes on fd 1" in err
    assert "demo_both: marked both read-only and destructive" in err
    for line in mcp.raw:
        json.loads(line)
    assert all(b"kaboom" not in line or b"Traceback" not in line for line in mcp.raw)


def test_an_extensions_faults_are_its_own_and_never_leak_a_token(mcp_process, tmp_path):
    site = tmp_path / "site"
    add_distribution(site, "demo-tools", "1.0", {"demo": "mcb_demo:DemoTools"}, {"mcb_demo": demo_module()})
    token = "tok-" + "s3cr3t" * 6
    mcp = start(mcp_process, site, env={"MCB_AGENT_TOKEN": token})
    leak = refusal_of(mcp.call("demo_leak")["result"]["structuredContent"]["error"])
    plain = refusal_of(mcp.call("demo_plain")["result"]["structuredContent"]["error"])
    for error in (leak, plain):
        assert error["code"] == "internal" and "extension's fault" in error["message"], error
        assert "bug in mcb" not in error["message"] and error["no_remedy"]
    assert "int" in plain["message"] and "RuntimeError" in leak["message"]
    assert mcp.close() == 0
    err = mcp.stderr()
    assert "server refused token ***" in err and "Traceback" in err
    assert token not in err and all(token.encode() not in line for line in mcp.raw)


def test_broken_extensions_register_nothing_and_never_stop_the_server(mcp_process, tmp_path):
    site = tmp_path / "site"
    add_distribution(site, "broken-tools", "0.1", {"broken": "mcb_broken:Tools"}, {"mcb_broken": BROKEN_IMPORT})
    add_distribution(site, "half-tools", "0.2", {"half": "mcb_half:Half"}, {"mcb_half": HALF})
    add_distribution(site, "greedy-tools", "0.3", {"greedy": "mcb_greedy:Greedy"}, {"mcb_greedy": GREEDY})
    mcp = start(mcp_process, site)
    listed = names(mcp)
    assert len(listed) == 35 and not [name for name in listed if name.startswith(("broken_", "half_", "schem_x"))]
    reports = extensions(mcp)
    assert {name: report["status"] for name, report in reports.items()} == {
        "broken": "failed",
        "greedy": "failed",
        "half": "failed",
    }
    assert "missing dependency xyz" in reports["broken"]["error"] and reports["half"]["tools"] == []
    assert "reserved" in reports["greedy"]["error"]
    refused = mcp.call("broken_anything")
    assert refused["error"]["code"] == -32602 and refused["error"]["data"]["extension_status"] == "failed"
    assert mcp.call("block_describe", {"block_id": "stone"})["result"]["isError"] is False
    assert mcp.close() == 0
    assert "extension broken (broken-tools 0.1, mcb_broken:Tools) failed" in mcp.stderr()


def test_duplicate_names_first_wins_and_disabled_extensions_are_never_imported(mcp_process, tmp_path):
    site = tmp_path / "site"
    add_distribution(site, "demo-a", "1.0", {"demo": "mcb_demo_a:DemoTools"}, {"mcb_demo_a": demo_module("a")})
    add_distribution(site, "demo-b", "1.0", {"demo": "mcb_demo_b:DemoTools"}, {"mcb_demo_b": demo_module("b")})
    mcp = start(mcp_process, site)
    assert mcp.call("demo_echo")["result"]["structuredContent"]["from"] == "a"
    assert names(mcp).count("demo_echo") == 1
    assert mcp.close() == 0
    assert "demo_echo is already registered" in mcp.stderr()
    marker = tmp_path / "imported"
    off = start(mcp_process, site, "--disable-extension", "demo", env={"DEMO_IMPORT_MARKER": str(marker)})
    assert not [name for name in names(off) if name.startswith("demo_")]
    assert {report["status"] for report in extensions(off).values()} == {"disabled"}
    hidden = off.call("demo_echo")
    assert hidden["error"]["data"]["extension_status"] == "disabled"
    assert "restart_with" in hidden["error"]["data"]
    assert not marker.exists()


def test_options_builder_rules():
    import pytest

    from mcb.mcp import ToolOptions

    with pytest.raises(ValueError, match="description"):
        ToolOptions("")
    with pytest.raises(ValueError, match="description"):
        ToolOptions("   ")
    warnings: list[str] = []
    hints = ToolOptions("x").read_only().destructive().hints(warnings.append)
    assert (hints.read_only, hints.destructive) == (False, True) and warnings
    clamped: list[str] = []
    assert ToolOptions("x").timeout_ms(50).deadline(clamped.append) == 1.0 and clamped
    assert ToolOptions("x").timeout_ms(900_000).deadline(clamped.append) == 300.0
    assert ToolOptions("x").deadline(clamped.append) is None


SCHEMA_TOOLS = """
from pathlib import Path
from mcb.mcp import Extension, ToolOptions, fail, ok

SCHEMA = {"type": "object", "additionalProperties": False, "required": ["output"], "properties": {
    "output": {"type": "string", "minLength": 1, "maxLength": 1024, "description": "File to write."},
    "count": {"type": "integer", "minimum": 1, "maximum": 9, "default": 2},
    "fail_after": {"type": "boolean"}}}


def write(args, ctx):
    path = Path(args.output)
    path.write_text("x" * args.count)
    if args.fail_after:
        return fail("demo_failed", "failed after writing", remedy="call again without fail_after", field="fail_after")
    return ok({"output": str(path), "count": args["count"] if "count" in args else None})


class SchemaTools(Extension):
    def register(self, registry, host):
        registry.add("plain_write", write, ToolOptions("Write COUNT x's into OUTPUT.").input_schema(SCHEMA)
                     .guard_path("output", write=True).destructive(False).cancellable())
"""
UNTYPED = """
from mcb.mcp import Extension, ToolOptions, ok
class Untyped(Extension):
    def register(self, registry, host):
        registry.add("loose_any", lambda args: ok(), ToolOptions("Any value.").input_schema(
            {"type": "object", "additionalProperties": False, "properties": {"value": {"anyOf": [{"type": "integer"},
                                                                                               {"type": "null"}]}}}))
"""


def test_an_extension_gives_a_json_schema_and_guards_its_paths(mcp_process, tmp_path):
    """D4: ToolOptions.input_schema(dict) and .guard_path(param, write=True), so an extension writes neither its own
    argument check nor its own path guard; a schema MCP clients cannot use fails the extension, named."""
    site = tmp_path / "site"
    add_distribution(site, "plain-tools", "1.0", {"plain": "mcb_plain:SchemaTools"}, {"mcb_plain": SCHEMA_TOOLS})
    add_distribution(site, "loose-tools", "1.0", {"loose": "mcb_loose:Untyped"}, {"mcb_loose": UNTYPED})
    work = tmp_path / "work"
    work.mkdir()
    mcp = start(mcp_process, site, "--root", str(work))
    listed = {tool["name"]: tool for tool in mcp.request("tools/list")["result"]["tools"]}
    assert listed["plain_write"]["inputSchema"]["properties"]["count"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 9,
        "default": 2,
    }
    assert "loose_any" not in listed and "top-level type" in extensions(mcp)["loose"]["error"]
    written = mcp.call("plain_write", {"output": "a.txt"})["result"]
    assert written["isError"] is False and (work / "a.txt").read_text() == "xx"
    assert written["structuredContent"]["output"] == str(work / "a.txt")  # resolved inside the root
    typo = refusal_of(mcp.call("plain_write", {"output": "b.txt", "cuont": 3})["result"]["structuredContent"]["error"])
    assert (
        typo["code"] == "invalid_argument"
        and typo["unknown"] == ["cuont"]
        and typo["did_you_mean"] == {"cuont": "count"}
        and typo["retry_with"] == {"output": "b.txt", "count": 3}
    )
    wrong = refusal_of(
        mcp.call("plain_write", {"output": "b.txt", "count": "3"})["result"]["structuredContent"]["error"]
    )
    assert wrong["field"] == "count" and wrong["problems"][0]["pointer"] == "/count"
    escape = refusal_of(mcp.call("plain_write", {"output": "../out.txt"})["result"]["structuredContent"]["error"])
    assert escape["code"] == "path_denied" and escape["field"] == "output" and not (tmp_path / "out.txt").exists()
    failed = refusal_of(
        mcp.call("plain_write", {"output": "c.txt", "fail_after": True})["result"]["structuredContent"]["error"]
    )
    assert failed["code"] == "demo_failed" and not (work / "c.txt").exists()  # written, then removed: not kept
    assert mcp.call("plain_write", {"output": "a.txt", "count": 3, "fail_after": True})["result"]["isError"]
    assert (work / "a.txt").exists()  # a file that was there before the call is the user's: never removed
