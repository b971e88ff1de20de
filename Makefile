# The two commands a newcomer needs: `make book` and `make test`.
# Any supported Python: the first of python3.13, python3.12, python3.11, python3 on PATH that runs
# and is 3.11 to 3.13 (or PYTHON=/path/to/python).
SUPPORTED := import sys; sys.exit(not (3, 11) <= sys.version_info[:2] < (3, 14))
PYTHON ?= $(firstword $(foreach p,python3.13 python3.12 python3.11 python3,$(shell $(p) -c "$(SUPPORTED)" >/dev/null 2>&1 && command -v $(p))))
VENV := .venv
BIN := $(VENV)/bin

.PHONY: book test test-fast lint clean python

# Two runs at once (one CPU thread each): the smoke book, its 16 fine-tuned and 25 prompted runs,
# in about two minutes on two cores (126 s measured by benchmarks/book_build.py, 2026-12-06).
JOBS ?= 2

book: $(VENV)/.installed
	$(BIN)/kluebook book --jobs $(JOBS) --quiet

# Tests on two processes at once (pytest-xdist), each test file whole on one, so that its module
# fixtures are built once: most slow tests run one kernel on one CPU thread. TEST_WORKERS=0
# runs them in this process.
TEST_WORKERS ?= 2
PYTEST := $(BIN)/python -m pytest -ra -n $(TEST_WORKERS) --dist loadfile

# pytest exits 5 when it collects no test: that is not a failure of the suite.
test: $(VENV)/.installed
	$(PYTEST); status=$$?; [ $$status -eq 0 ] || [ $$status -eq 5 ]

# The fast loop while editing: everything but the end-to-end and training tests (marked slow).
test-fast: $(VENV)/.installed
	$(PYTEST) -m "not slow"; status=$$?; [ $$status -eq 0 ] || [ $$status -eq 5 ]

lint: $(VENV)/.installed
	$(BIN)/ruff check src tests benchmarks notebooks && $(BIN)/ruff format --check src tests benchmarks notebooks && $(BIN)/lint-imports --no-cache

python:
	@[ -n "$(PYTHON)" ] || { echo "make: no Python 3.11, 3.12 or 3.13 found: install one (python.org, your package manager or pyenv), or run make PYTHON=/path/to/python3.x"; exit 1; }

# The exact versions of constraints.txt, the package editable with its book, dev, dask and
# prompted extras.
$(VENV)/.installed: pyproject.toml constraints.txt | python
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e ".[book,dev,dask,prompted]"
	touch $@

clean:
	rm -rf _build book/runs book/_generated .cache
