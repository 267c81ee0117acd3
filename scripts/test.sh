#!/bin/sh
# The README's second command: set up (venv, Debian's chromium), lint, then run the whole suite.
set -e
cd "$(dirname "$0")/.."
sh scripts/setup.sh
sh scripts/ensure-chromium.sh
.venv/bin/ruff check .
# two processes, each test file in one of them (a file's fixtures are set up once)
exec .venv/bin/python -m pytest -n 2 --dist loadfile "$@"
