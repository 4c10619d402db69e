"""The numbers and views of `schem render`, in one light module: the renderer checks them, and the CLI option and
the MCP tool schema state them from here (importing this costs no numpy or Pillow)."""

VIEWS = ("top", "iso", "both")

SCALE_MIN = 1
SCALE_MAX = 64  # pixels per block
