"""`mcb mcp`: the toolkit as an MCP server on stdio. Extensions import their API from here::

    from mcb.mcp import Extension, ToolOptions, ok, fail

The names come from :mod:`mcb.mcp.extensions` on first use, so importing the server's modules does not import
pydantic before the catalog is needed; the server itself lives in :mod:`mcb.mcp.server`.
"""

__all__ = ["Extension", "ExtensionHost", "Result", "ToolOptions", "ToolRegistry", "fail", "ok"]


def __getattr__(name: str):
    if name in __all__:
        from mcb.mcp import extensions as registry

        return getattr(registry, name)
    raise AttributeError(f"module 'mcb.mcp' has no attribute {name!r}")
