"""The numbers that bound an offline terrain preview, and the shape of a terrain id, in one light module: the core
checks them, and the CLI options and the MCP tool schema state them from here (importing this costs no numpy)."""

RESOLUTION_MIN = 32
RESOLUTION_MAX = 256
DEFAULT_RESOLUTION = 256  # offline; the server's own default is 128
DEFAULT_TILE_BUDGET = 4096  # the server's max-plan-blocks
# A terrain id is the SHA-256 (64 lowercase hex digits) that `terrain_preview` prints for a recipe.
TERRAIN_ID_PATTERN = r"^[a-f0-9]{64}$"
