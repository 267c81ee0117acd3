#!/bin/sh
# The README's second command: set up (venv, Debian's chromium), lint, then run the whole suite.
set -e
cd "$(dirname "$0")/.."
sh scripts/setup.sh
sh scripts/ensure-chromium.sh
.venv/bin/ruff check .
exec .venv/bin/python -m pytest "$@"
