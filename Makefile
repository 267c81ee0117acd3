# The two commands of the README: `make demo` and `make test`. Both set up what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench browser clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/meteors-judge demo

browser:
	@sh scripts/ensure-chromium.sh

test: $(STAMP) browser
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/meteors-judge bench sample_videos/clip_000.mp4
	$(BIN)/python -m pytest tests/benchmarks --benchmark-enable --benchmark-only

clean:
	rm -rf $(VENV) build *.egg-info
