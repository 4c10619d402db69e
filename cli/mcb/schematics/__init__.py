"""Sponge schematic codec (read v1/v2/v3, write v2/v3), validation rules and the in-memory model.

Public API lives in :mod:`mcb.schematics.sponge` (``read_schematic``, ``write_schematic``, ``encode_schematic``),
:mod:`mcb.schematics.rules` (``validate_schematic``), :mod:`mcb.schematics.server_rules` (``check_server_subset``:
what the server would say about a file) and :mod:`mcb.schematics.model`.
"""
