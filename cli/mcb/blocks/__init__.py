"""Block-state grammar (state), the vanilla block registry (registry) and state rotation (transform).

Import the submodules directly; this package imports nothing so that start-up stays light.
"""
