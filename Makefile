# On a fresh machine (Python 3.11 + pip):
#   make lab         install what is missing, open the course in JupyterLab at notebook 00
#   make reproduce   install into .venv, run the experiments, execute every notebook and build the book,
#                    all under results/ (the committed notebooks are left as they are)
#   make test        install what is missing, run pytest unit tests and nbval over every notebook
#   make book        the static website of the committed notebooks, in results/book
#   make notebooks   (maintainers) re-execute the committed notebooks in place
#   make reference   (maintainers) REFERENCE_RUN=<reproduce --seeds folder> -> reference_results/ + the claims page's results
#   make assignments (instructors) regenerate assignments/student and assignments/autograder; fails unless every
#                    test passes on the solutions
#   make grade       (instructors) SUBMISSIONS=folder SCORES=file.csv [WIDE=1: a row per student and assignment]
#   make student-copy (instructors) what students get, in STUDENT_OUT (default results/student-copy);
#                    REPOSITORY_URL=https://... the class's repository, which the copy's book and run page open
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
RESULTS ?= results

.PHONY: install lab book notebooks test reproduce reference verify benchmark assignments grade student-copy clean

install: $(STAMP)

$(STAMP): pyproject.toml course/pyproject.toml requirements.lock
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first and pinned: a CPU build; an open range would pull a CUDA build.
	$(PY) -m pip install --quiet -c requirements.lock torch==2.13.0
	$(PY) -m pip install --quiet -c requirements.lock -e '.[dev,dbn]' -e course
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest --nbval-lax -p no:cacheprovider tests notebooks

# JupyterLab on this machine only (127.0.0.1), at the first notebook; LAB_ARGS=--no-browser to open it yourself.
LAB_ARGS ?=
lab: $(STAMP)
	$(PY) -m jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.root_dir=. $(if $(filter 0,$(shell id -u)),--allow-root) \
		$(LAB_ARGS) notebooks/00_start_here.ipynb

# The committed notebooks as a website (book/build.py; MathJax and the widget manager come from npm once).
book: $(STAMP)
	$(PY) book/build.py --notebooks notebooks --out $(RESULTS)/book

# Everything goes under $(RESULTS): results, executed copies of the notebooks, and the book made of them.
reproduce: $(STAMP)
	$(PY) -m tgreedy_course reproduce --out $(RESULTS)
	$(PY) -m tgreedy_course execute-notebooks --out $(RESULTS)/notebooks
	$(PY) book/build.py --notebooks $(RESULTS)/notebooks --out $(RESULTS)/book --claims $(RESULTS)/claims.md

# Maintainers: re-execute the committed notebooks in place (their outputs are what the book shows).
notebooks: $(STAMP)
	$(PY) -m tgreedy_course execute-notebooks --in-place

# Maintainers: make a paper-scale `reproduce --seeds N` run (its --out folder) the committed reference
# results and rewrite the reference-verdicts block of the book's claims page (book/_generated/), e.g. after
#   python -m tgreedy_course reproduce --seeds 5 --feature-maps dbn,conv,pixels,random --out results/seeds
REFERENCE_RUN ?= $(RESULTS)/seeds
reference: $(STAMP)
	$(PY) -m tgreedy_course reference $(REFERENCE_RUN) --readme book/_generated/reference-verdicts.md

verify: $(STAMP)
	$(PY) -m tgreedy_course verify --json results/verify.json --readme book/_generated/verify-table.md

benchmark: $(STAMP)
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

SUBMISSIONS ?= submissions
SCORES ?= scores.csv
# WIDE=1: one row per student and assignment, a column per question (grade --wide)
WIDE ?=

assignments: $(STAMP)
	$(PY) -m tgreedy_course assignments generate --jobs 2

grade: $(STAMP)
	$(PY) -m tgreedy_course grade $(SUBMISSIONS) --out $(SCORES) --jobs 2 $(if $(filter 1 yes true,$(WIDE)),--wide)

# The folder to hand out: notebooks, student assignments, data, library, a README and Makefile for students;
# no solutions, hidden tests or grader files (checked before it is written). Standard library only: no install.
STUDENT_OUT ?= $(RESULTS)/student-copy
REPOSITORY_URL ?=
student-copy:
	$(PYTHON) course/tgreedy_course/student_copy.py --out $(STUDENT_OUT) $(if $(REPOSITORY_URL),--repository-url $(REPOSITORY_URL))

clean:
	rm -rf $(VENV) .pytest_cache
