# Two commands on a fresh machine: `make run` starts the bot, `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint typecheck bench clean cards build

$(BIN)/.installed: requirements.txt requirements-dev.txt requirements-build.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

# Compiles the engine's hot modules (Hearts, cards) with mypyc into build/mypyc (nothing to do when it is current).
# Then compiles the message catalogs (locale/*/LC_MESSAGES/*.po → .mo beside each: tools/catalogs.py).
# Never stops make by default: if it fails, the engine runs its pure Python sources (the tool says so),
# so a machine without a C compiler still runs and tests the bot.  CI passes BUILD_FLAGS=--strict: there a
# failed build stops make, since the tests would otherwise check the pure sources against themselves.
BUILD_FLAGS ?=
build: $(BIN)/.installed
	$(BIN)/python -m tools.build $(BUILD_FLAGS)
	$(BIN)/python -m tools.catalogs compile

# Without a token, say so (and how to get one) before making the venv or compiling anything.
run:
	@$(PYTHON) -m tools.invite --check-token
	@$(MAKE) --no-print-directory build
	$(BIN)/python bot.py

test: build
	$(BIN)/python -m pytest

lint: $(BIN)/.installed typecheck
	$(BIN)/ruff check .

# mypy over engine/, games/, tables/, cogs/, bench/ and tools/ ([tool.mypy] in pyproject.toml); any error fails make lint, so CI.
typecheck: $(BIN)/.installed
	$(BIN)/mypy

bench: build
	$(BIN)/python bench/engine.py

.PHONY: demo
# A table of each game, two scripted people and AIs, through the real bot and a fake Discord on
# 127.0.0.1: the channel is printed as they saw it.  No token needed; about 25 s.  One game, public
# messages only: make demo DEMO_ARGS="--game siege --brief" (--game again for more games).  In another
# language (the people's clients and the server): make demo DEMO_ARGS="--locale de".
DEMO_ARGS ?=
demo: $(BIN)/.installed
	$(BIN)/python -m tests.fakediscord.demo $(DEMO_ARGS)

clean:
	rm -rf $(VENV) build/mypyc build/mypy-cache .mypy_cache

# Every card face at 128 px and at 22 px (Discord's inline emoji size), to judge the art.
cards: $(BIN)/.installed
	$(BIN)/python -c "from cogs.pictures.faces import main; main()" build/cards.png
