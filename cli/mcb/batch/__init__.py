"""Every write mcb makes, on one engine: plan logs (:mod:`mcb.batch.log`) run by :mod:`mcb.batch.engine` from a plan
source — one recipe (:mod:`mcb.batch.sources`), a schematic file (:mod:`mcb.batch.schematic`), terrain tiles
(:mod:`mcb.batch.terrain_run`), an undo (:mod:`mcb.batch.undo`) — and batch files of such steps
(:mod:`mcb.batch.runner`, docs/batch.md).
"""
