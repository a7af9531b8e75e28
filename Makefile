# Two commands on a fresh machine: `make run` starts the bot, `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench clean cards

$(BIN)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

run: $(BIN)/.installed
	$(BIN)/python bot.py

test: $(BIN)/.installed
	$(BIN)/python -m pytest

lint: $(BIN)/.installed
	$(BIN)/ruff check .

bench: $(BIN)/.installed
	$(BIN)/python bench/engine.py

.PHONY: demo
# A table of each game, two scripted people and AIs, through the real bot and a fake Discord on
# 127.0.0.1: the channel is printed as they saw it.  No token needed.
demo: $(BIN)/.installed
	$(BIN)/python -m tests.fakediscord.demo

clean:
	rm -rf $(VENV)

# Every card face at 128 px and at 22 px (Discord's inline emoji size), to judge the art.
cards: $(BIN)/.installed
	$(BIN)/python -m cogs.faces build/cards.png
