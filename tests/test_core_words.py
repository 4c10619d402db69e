"""The core names no face's words: an error, or a finding's hint, names an argument as the one model does, in braces
(``{drop_extras}``, ``{output=NEW_NAME}``), a tool by its name (``{project_context}``), and each face says them its
own way (mcb.errors; the CLI in mcb.boundary, mcb mcp in mcb.mcp.refusals). An AST walk over the core: every module
but the faces (commands/, mcp/, mcb.app, mcb.options, mcb.terminal, mcb.boundary, mcb.console) and server/, whose
messages are the plugin's wire words.

- No string but a docstring names a CLI flag (``--drop-extras``, ``-o FILE``), except inside a whole `mcb ...`
  command line quoted for the user to run, and the few texts below that are about the command line itself.
- Every ``{name}`` is a tool, an argument a face has (a CLI option or an MCP tool's argument), a setting, or a
  number the refusal table reads from a server's message.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

import mcb
from mcb.errors import PLACEHOLDER

PACKAGE = Path(mcb.__file__).resolve().parent
FACES = ("commands", "mcp", "server")
FACE_FILES = ("app.py", "options.py", "terminal.py", "boundary.py", "console.py", "__main__.py")
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-o(?= ))")
COMMAND_LINE = re.compile(r"`mcb [^`]*(`|$)")  # `mcb schem convert FILE -o OUT.schem`: a command to run, whole
# Texts about the command line itself, which only it has: (module, flag) -> why.
ABOUT_THE_COMMAND_LINE = {
    ("errors.py", "--strict"): "the exit-code table: only the command line exits with a code (mcb help exit-codes)",
    ("errors.py", "--wait"): "the exit-code table: only the command line exits with a code (mcb help exit-codes)",
    ("config.py", "--timeout"): "where a setting came from, as `mcb config show` says it (flag --timeout)",
}
# Numbers and names a template is filled with before any face sees it (the refusal table's {pos} and {limit},
# str.format fields of messages built in place).
FILLED = {"pos", "limit", "value", "model"}


def core_files() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] not in FACES and path.relative_to(PACKAGE).as_posix() not in FACE_FILES
    ]


def strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string of ``path`` but docstrings; an f-string whole, each value in it as ``…``."""
    tree = ast.parse(path.read_text(), str(path))
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        if isinstance(node, ast.JoinedStr):
            skip.update(id(part) for part in node.values)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(part.value if isinstance(part, ast.Constant) else "…" for part in node.values)
            found.append((node.lineno, text))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            found.append((node.lineno, node.value))
    return found


def test_the_walk_sees_the_core_and_not_the_faces():
    names = {path.relative_to(PACKAGE).as_posix() for path in core_files()}
    assert {"errors.py", "refusals.py", "schematics/rewrite.py", "batch/state.py"} <= names
    assert not any(name.startswith(("commands/", "mcp/", "server/")) or name == "boundary.py" for name in names)


@pytest.mark.parametrize("path", core_files(), ids=lambda path: path.relative_to(PACKAGE).as_posix())
def test_the_core_writes_no_flag(path):
    module = path.relative_to(PACKAGE).as_posix()
    found = [
        f"{module}:{line}: {flag} in {text!r}"
        for line, text in strings(path)
        for flag in FLAG.findall(COMMAND_LINE.sub("", text))
        if (module, flag) not in ABOUT_THE_COMMAND_LINE
    ]
    assert not found, "name the argument in braces ({drop_extras}) instead:\n" + "\n".join(found)


@cache
def argument_names() -> frozenset[str]:
    """Every name a face has for an argument: the CLI's options (by parameter name and by spelling), the MCP tools'
    arguments, and the settings mcb mcp reads from its environment."""
    from mcb.app import command_tree
    from mcb.mcp.refusals import MCP_SETTINGS
    from mcb.mcp.tools import builtin_actions

    names = set(MCP_SETTINGS)
    stack = [command_tree()]
    while stack:
        command = stack.pop()
        stack += getattr(command, "commands", {}).values()
        for param in command.params:
            names.add(param.name)
            names.update(opt.lstrip("-").replace("-", "_") for opt in param.opts if opt.startswith("--"))
    for action in builtin_actions():
        names.update(action.input_model.model_fields)
    return frozenset(names)


def test_every_name_in_braces_is_one_a_face_knows():
    from mcb.summaries import SUMMARIES

    known = argument_names() | set(SUMMARIES) | FILLED
    unknown = [
        f"{path.relative_to(PACKAGE)}:{line}: {{{name}}}"
        for path in core_files()
        for line, text in strings(path)
        for name, _value in PLACEHOLDER.findall(text.replace("{{", ""))
        if name and name not in known
    ]
    assert not unknown, unknown
