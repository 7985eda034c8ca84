# Two commands matter: `make demo` (set up, then replay the example session) and `make test` (set up,
# then lint, type-check and run the whole suite). Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install demo test test-under-load lint typecheck format all dist publish

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -U pip
	$(BIN)/python -m pip install -q -e '.[semantic]' --group dev
	touch $@

install: $(VENV)/.installed

demo: install
	$(BIN)/memhooks simulate examples/session.jsonl

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# mypy sees the folders under their installed names through a link tree (see pyproject.toml).
typecheck: install
	mkdir -p .typecheck/memhooks
	ln -sfn ../../memory .typecheck/memhooks/memory
	ln -sfn ../../hooks .typecheck/memhooks/hooks
	$(BIN)/mypy

# The suite on WORKERS processes (pytest-xdist), a test file whole on one of them and the
# tier of real harness CLIs on one (tests/conftest.py).
WORKERS ?= 2
test: lint typecheck
	$(BIN)/pytest -n $(WORKERS)

# `make test` ROUNDS times while busy loops keep every core busy (docs/reliability.md).
ROUNDS ?= 3
test-under-load: install
	tests/stress_make_test.sh $(ROUNDS)

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

all: test

# A wheel and an sdist in dist/ (tests/promises/test_install_tools.py installs both).
dist: install
	rm -rf dist
	$(BIN)/python -m build --outdir dist .

# Needs a PyPI token (UV_PUBLISH_TOKEN); until it is run, install from a clone (README).
publish: dist
	$(BIN)/uv publish dist/*
