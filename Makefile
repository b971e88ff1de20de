# The two commands a newcomer needs: `make book` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin

.PHONY: book test test-fast lint clean

# Two runs at once (each on its share of the cores): the smoke book in about three minutes.
JOBS ?= 2

book: $(VENV)/.installed
	$(BIN)/kluebook book --jobs $(JOBS) --quiet

# pytest exits 5 when it collects no test: that is not a failure of the suite.
test: $(VENV)/.installed
	$(BIN)/python -m pytest -ra; status=$$?; [ $$status -eq 0 ] || [ $$status -eq 5 ]

# The fast loop while editing: everything but the end-to-end and training tests (marked slow).
test-fast: $(VENV)/.installed
	$(BIN)/python -m pytest -ra -m "not slow"; status=$$?; [ $$status -eq 0 ] || [ $$status -eq 5 ]

lint: $(VENV)/.installed
	$(BIN)/ruff check src tests benchmarks notebooks && $(BIN)/ruff format --check src tests benchmarks notebooks

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev,dask]"
	touch $@

clean:
	rm -rf _build book/runs book/_generated .cache
