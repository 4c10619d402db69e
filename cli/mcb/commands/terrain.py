"""`mcb terrain` commands (not implemented yet)."""

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
