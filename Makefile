PYTHON ?= .venv/bin/python
INPUT ?= fixtures
OUT ?= out

.PHONY: setup build-fidelity test lint bench

.venv/bin/python:
	python3 -m venv .venv
	.venv/bin/pip install -q -e '.[test]'

setup: .venv/bin/python

build-fidelity: setup
	$(PYTHON) -m fidelity.cli build $(INPUT) -o $(OUT)

test: setup
	$(PYTHON) -m pytest -n 4 --dist loadfile --no-loadscope-reorder

lint: setup
	.venv/bin/ruff check . && .venv/bin/ruff format --check .

bench: setup
	$(PYTHON) bench/extract_bench.py
	$(PYTHON) bench/excel_bench.py
	$(PYTHON) bench/build_bench.py
	$(PYTHON) bench/report_bench.py
	if $(PYTHON) -c 'import ray' 2>/dev/null; then $(PYTHON) bench/ray_bench.py; \
	else echo "bench/ray_bench.py skipped: pip install -e '.[ray]'"; fi
