# Two commands on a fresh machine (Python 3.11 + pip):
#   make reproduce   install into .venv, execute every notebook, write figures and results
#   make test        install what is missing, run pytest unit tests and nbval over every notebook
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
RESULTS ?= results

.PHONY: install test reproduce verify benchmark assignments grade clean

install: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first and pinned: a CPU build; an open range would pull a CUDA build.
	$(PY) -m pip install --quiet -c requirements.lock torch==2.13.0
	$(PY) -m pip install --quiet -c requirements.lock -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest --nbval-lax -p no:cacheprovider tests notebooks

reproduce: $(STAMP)
	$(PY) -m tgreedy_lib reproduce --out $(RESULTS)
	$(PY) -m tgreedy_lib execute-notebooks

verify: $(STAMP)
	$(PY) -m tgreedy_lib verify --json results/verify.json --readme README.md

benchmark: $(STAMP)
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

SUBMISSIONS ?= submissions
SCORES ?= scores.csv

assignments: $(STAMP)
	$(PY) -m tgreedy_lib assignments generate --jobs 2

grade: $(STAMP)
	$(PY) -m tgreedy_lib grade $(SUBMISSIONS) --out $(SCORES) --jobs 2

clean:
	rm -rf $(VENV) .pytest_cache
