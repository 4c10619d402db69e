"""The tool catalog: one description per action, shared by the CLI's MCP face and any other face.

Core code: nothing here imports typer, rich, click or mcp.
"""
