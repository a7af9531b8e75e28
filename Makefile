# Two commands on a fresh machine: `make run` starts the bot, `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench clean

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

clean:
	rm -rf $(VENV)
