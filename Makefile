# Two entry points for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit wheel bench clean browser http-tools axe pyodide FORCE

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# A build warning fails the install and the wheel: setuptools warns as UserWarning. Only its
# notice that an install is editable is let through.
BUILD_WARNINGS := PYTHONWARNINGS="error::UserWarning,ignore:Editable installation:UserWarning"

# The editable install is setuptools' strict mode: a tree of links under build/ that a .pth
# file puts on the path, so mypy reads the package as installed. The tree links file by file:
# it is laid again when the metadata changes or a file of the checkout comes or goes.
EDITABLE := $(BUILD_WARNINGS) $(BIN)/python -m pip install --quiet \
	--config-settings editable_mode=strict -e
$(STAMP): pyproject.toml build/checkout-files | $(BIN)/python
	$(EDITABLE) '.[test]'
	touch $(STAMP)

# The checkout's file names, rewritten only when they differ: its date is when one last came
# or went.
build/checkout-files: FORCE
	@mkdir -p build
	@git ls-files --cached --others --exclude-standard | sort >$@.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

FORCE:

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

# The package and the tests, strict (pyproject.toml [tool.mypy]).
typecheck: $(STAMP)
	$(BIN)/mypy

# One seed per run for hash order (PYTHONHASHSEED) and hypothesis, printed so that a failure
# can be run again: `make test SEED=1234`. Session seeds come from the system's random source;
# a test that rolls them fixes its dice or asserts only what holds for any roll.
unit: $(STAMP)
	@seed=$(SEED); seed=$${seed:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}; \
	echo "random seed $$seed (make unit SEED=$$seed runs with it again)"; \
	PYTHONHASHSEED=$$seed $(BIN)/pytest -q --hypothesis-seed=$$seed

test: lint typecheck wheel browser http-tools axe pyodide unit

# Debian's Chromium and chromium-driver for the browser tests, installed when absent and this
# machine can (root and apt-get); otherwise those tests skip, naming what is missing.
browser:
	bash .ci/install-browser --if-possible

# curl and jq for the test that runs the examples of docs/api.md, installed the same way.
http-tools:
	bash .ci/install-http-tools --if-possible

# axe-core (npm, pinned in tests/web/axe/package-lock.json) for the accessibility test.
axe:
	bash .ci/install-axe --if-possible

# Pyodide (npm) and its msgspec wheel (PyPI), pinned in .ci/install-pyodide, for the verify
# page, which runs the command line's own verify in the browser.
pyodide:
	bash .ci/install-pyodide --if-possible

# Build the wheel and play the demo from it in a fresh venv outside the checkout: proves the
# package (migrations included) installs and runs on its own.
wheel: $(STAMP)
	rm -rf dist
	$(BUILD_WARNINGS) $(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir dist .
	bash .ci/wheel-smoke dist/*.whl

# Figures, not tests: `make bench BENCH_FLAGS=--quick` for a try-out in a few minutes.
bench: $(BIN)/python
	$(EDITABLE) '.[test,bench]'
	$(BIN)/python bench/run $(BENCH_FLAGS)

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
