# Setup is part of every target: a fresh machine needs only Python 3.11+ and make.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench completions clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" bash scripts/demo.sh

test: $(STAMP)
	$(BIN)/python -m ruff check --quiet .
	$(BIN)/python -m ruff format --check --quiet .
	$(BIN)/python -m pytest -q -n auto --dist worksteal

# Start-up is measured in a second venv holding only what `pip install mcb` brings, as users have it.
USER_VENV := .venv-user
# Typer 0.28, the last release whose commands build no pydantic TypeAdapter, measured beside the installed one.
OLD_TYPER := .bench-typer-0.28
# Nucleation (a Rust schematic library), the peer bench_litematica measures against, never in mcb's environments:
# wheels only (its newest releases are source-only for Python 3.11 and need Rust to build).
# bench_litematica also makes .bench-peers-newest with a Python >= 3.12 when there is one (Nucleation's newest wheels).
PEERS := .bench-peers

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	test -x $(USER_VENV)/bin/python || $(PYTHON) -m venv $(USER_VENV)
	$(USER_VENV)/bin/python -m pip install --quiet -e .
	test -d $(OLD_TYPER) || $(BIN)/python -m pip install --quiet --no-deps --target $(OLD_TYPER) typer==0.28.0
	test -x $(PEERS)/bin/python || ($(PYTHON) -m venv $(PEERS) && $(PEERS)/bin/python -m pip install --quiet --only-binary=:all: nucleation)
	$(BIN)/python benchmarks/run.py --user-python $(USER_VENV)/bin/python --also-typer $(OLD_TYPER)

completions: $(STAMP)
	$(BIN)/python scripts/gen_completions.py

clean:
	rm -rf $(VENV) $(USER_VENV) $(OLD_TYPER) $(PEERS) $(PEERS)-newest build *.egg-info cli/*.egg-info
