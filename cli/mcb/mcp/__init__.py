"""`mcb mcp`: the toolkit as an MCP server on stdio. Extensions import their API from here::

    from mcb.mcp import Extension, ToolOptions, ok, fail

Importing this package is cheap; the server itself lives in :mod:`mcb.mcp.server`.
"""

from mcb.catalog.registry import Extension, ExtensionHost, Result, ToolOptions, ToolRegistry, fail, ok

__all__ = ["Extension", "ExtensionHost", "Result", "ToolOptions", "ToolRegistry", "fail", "ok"]
