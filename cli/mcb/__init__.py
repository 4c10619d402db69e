"""mcb: command-line toolkit for the minecraft-builder Paper plugin."""

__version__ = "0.1.0"
