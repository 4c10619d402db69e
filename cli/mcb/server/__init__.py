"""Local reference server for the minecraft-builder RPC (``mcb serve``). Extension contract: :mod:`mcb.server.api`."""
