PYTHON ?= .venv/bin/python
INPUT ?= fixtures
OUT ?= out
# apt-get runs through sudo unless we are root (a root machine, a container, CI).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# LibreOffice (the normal packages, not -nogui: ../TOOLCHAIN notes), uno for unoserver, poppler.
SYSTEM_PACKAGES := libreoffice-writer libreoffice-calc libreoffice-impress python3-uno \
	poppler-utils python3-venv
# The browser tests (report page, Label Studio screenshots) drive Debian's chromium.
TEST_SYSTEM_PACKAGES := chromium
TEST_CACHE ?= $(HOME)/.cache/fidelity-tests
LABEL_STUDIO_VENV := $(TEST_CACHE)/label-studio
PYTEST := $(PYTHON) -m pytest -n 4 --dist loadfile --no-loadscope-reorder -rs
DEPTRY := .venv/bin/deptry

.PHONY: system test-system apt setup test-setup build-fidelity test test-quick lint bench

# Installs the Debian packages that are missing (nothing to do when all are there).
system:
	@$(MAKE) --no-print-directory apt PACKAGES="$(SYSTEM_PACKAGES)"

test-system:
	@$(MAKE) --no-print-directory apt PACKAGES="$(SYSTEM_PACKAGES) $(TEST_SYSTEM_PACKAGES)"

apt:
	@missing=$$(for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if ! command -v apt-get >/dev/null; then \
		echo "not a Debian system: install $$missing with your package manager" >&2; exit 0; fi; \
	echo "installing Debian packages:" $$missing; \
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		$$missing >/dev/null

.venv/bin/python: | system
	python3 -m venv .venv

# The package and the test extra (the tests build files with python-docx and python-pptx).
.venv/.installed: pyproject.toml | .venv/bin/python
	.venv/bin/pip install -q -e '.[test]'
	touch $@

# Everything the whole suite needs: the review and ray extras, and Label Studio in its own
# venv with a database migrated once (each review test server starts on a copy of it).
.venv/.installed-all: pyproject.toml .venv/.installed
	.venv/bin/pip install -q -e '.[test,review,ray]'
	[ -x $(LABEL_STUDIO_VENV)/bin/label-studio ] || { python3 -m venv $(LABEL_STUDIO_VENV) && \
		$(LABEL_STUDIO_VENV)/bin/pip install -q 'label-studio>=1.23,<1.24'; }
	FIDELITY_TEST_CACHE=$(TEST_CACHE) $(PYTHON) -m tests.support.labelstudio_support
	touch $@

setup: system .venv/.installed

test-setup: test-system .venv/.installed-all

build-fidelity: setup
	$(PYTHON) -m fidelity.cli build $(INPUT) -o $(OUT)

# Every test, integration tests with LibreOffice, Ray, Label Studio and Chromium included.
test: test-setup
	FIDELITY_TEST_CACHE=$(TEST_CACHE) $(PYTEST)

# The edit loop: the tests that need no component outside Python (no `needs` marker) and
# run no whole build in child processes (no `slow` marker).
test-quick: setup
	$(PYTEST) -m "not needs and not slow"

lint: setup
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && $(DEPTRY) . && \
		$(PYTHON) -m mypy

bench: setup
	$(PYTHON) bench/extract_bench.py
	$(PYTHON) bench/excel_bench.py
	$(PYTHON) bench/build_bench.py
	$(PYTHON) bench/report_bench.py
	$(PYTHON) bench/pool_bench.py
	if $(PYTHON) -c 'import ray' 2>/dev/null; then $(PYTHON) bench/ray_bench.py; \
	else echo "bench/ray_bench.py skipped: pip install -e '.[ray]'"; fi
