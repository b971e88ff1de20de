# The two commands a newcomer needs: `make book` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin

.PHONY: book test lint clean

book: $(VENV)/.installed
	$(BIN)/kluebook book

# pytest exits 5 when it collects no test: that is not a failure of the suite.
test: $(VENV)/.installed
	$(BIN)/python -m pytest -ra; status=$$?; [ $$status -eq 0 ] || [ $$status -eq 5 ]

lint: $(VENV)/.installed
	$(BIN)/ruff check src tests benchmarks && $(BIN)/ruff format --check src tests benchmarks

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@

clean:
	rm -rf _build book/runs book/_generated .cache
