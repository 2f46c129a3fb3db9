# Two commands a newcomer needs: `make train` (the main job) and `make test`.
# Both create .venv on first use: torch==2.13.0 first (a CPU build here; an unpinned torch
# pulls a multi-GB CUDA build), then the project with its extras.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: venv train test test-all lint bench bench-vector bench-threads clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[train,web,dev,openspiel,rllib]"
	touch $(STAMP)

train: venv
	$(PY) -m train lost_heir $(ARGS)

test: venv
	$(PY) -m pytest -q -n 2 $(ARGS)

test-all: venv
	$(PY) -m pytest -q -n 2 -m "" $(ARGS)

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: venv
	$(PY) benchmarks/bench_envs.py $(ARGS)
	$(PY) benchmarks/bench_vector.py

bench-vector: venv
	$(PY) benchmarks/bench_vector.py $(ARGS)

bench-threads: venv
	$(PY) benchmarks/bench_threads.py $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
