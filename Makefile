# Two entry points for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit wheel bench clean browser http-tools

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the project's metadata changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Plays the tour and returns (CI runs it); the table in a browser is one command away.
demo: $(STAMP)
	$(BIN)/diceledger demo
	@echo
	@echo "== The table in a browser"
	@echo "  $(BIN)/diceledger serve --demo    # a played session, and the links to open it"
	@echo
	@echo "== diceledger on PATH, in each new shell (from this folder)"
	@echo "  . $(BIN)/activate"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# mypy cannot follow the editable install's import hook, so it reads the package through
# a tree of links named as it is installed: build/typecheck/diceledger/<folder>.
PACKAGE_FOLDERS := cli conformance domain infra migrations web
typecheck: $(STAMP)
	mkdir -p build/typecheck/diceledger
	for folder in $(PACKAGE_FOLDERS); do \
		if [ -d $$folder ]; then ln -sfn ../../../$$folder build/typecheck/diceledger/$$folder; fi; \
	done
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -q

test: lint typecheck wheel browser http-tools unit

# Debian's Chromium and chromium-driver for the browser tests, installed when absent and this
# machine can (root and apt-get); otherwise those tests skip, naming what is missing.
browser:
	bash .ci/install-browser --if-possible

# curl and jq for the test that runs the examples of docs/api.md, installed the same way.
http-tools:
	bash .ci/install-http-tools --if-possible

# Build the wheel and play the demo from it in a fresh venv outside the checkout: proves the
# package (migrations included) installs and runs on its own.
wheel: $(STAMP)
	rm -rf dist
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir dist .
	bash .ci/wheel-smoke dist/*.whl

# Figures, not tests: `make bench BENCH_FLAGS=--quick` for a try-out in a few minutes.
bench: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python bench/run $(BENCH_FLAGS)

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
