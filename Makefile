# motion_formats_ros: `make test` and `make demo` work on a fresh clone with Python 3 and make.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# Every process started from here that could start DDS stays on this machine.
export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST
export ROS_DOMAIN_ID ?= 77
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: all venv test lint typecheck unit demo bench clean

all: test

venv: $(STAMP)

$(STAMP): setup.py setup.cfg package.xml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,plot]'
	touch $(STAMP)

LINT_PATHS := $(wildcard motion_formats_ros test bench tools launch examples/*.py)

lint: venv
	$(VENV)/bin/ruff check $(LINT_PATHS)
	$(VENV)/bin/ruff format --check $(LINT_PATHS)

typecheck: venv
	$(VENV)/bin/mypy motion_formats_ros

unit: venv
	$(PY) -m pytest -q test

test: lint typecheck unit

demo: venv
	$(PY) tools/demo.py

bench: venv
	$(PY) bench/bench_omf.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
