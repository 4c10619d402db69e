"""Schematics in every format people have: one model, a reader and a writer per format, the upgrade to a target
release, validation, transforms and pictures.

Public API: :mod:`mcb.schematics.formats` (the registry of formats, one record each; ``read_any``, ``write_any``:
Sponge v1-v3, Litematica, structure .nbt, legacy .schematic), :mod:`mcb.schematics.upgrade` (``upgrade_schematic``),
:mod:`mcb.schematics.model`, :mod:`mcb.schematics.rules` (``validate_schematic``), :mod:`mcb.schematics.server_rules`
(``check_server_subset``: what the server would say about a file), :mod:`mcb.schematics.transform` and
:mod:`mcb.schematics.rewrite` (rotate and mirror), :mod:`mcb.schematics.info`, :mod:`mcb.schematics.convert` and
:mod:`mcb.schematics.render`.
"""
