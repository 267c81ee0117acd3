#!/bin/sh
# The README's first command: set up, then serve the dashboard judging the bundled clip live.
set -e
cd "$(dirname "$0")/.."
sh scripts/setup.sh
exec .venv/bin/meteors-judge demo "$@"
