#!/bin/sh
# Creates .venv with the project and its test tools; installs Debian's python3-venv first if needed.
# Re-running is cheap: it reinstalls only when pyproject.toml changed.
set -e
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

if ! "$PYTHON" -c "import ensurepip, venv" >/dev/null 2>&1; then
    echo "Installing Debian's python3-venv..."
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
fi
if [ ! -x .venv/bin/python ] || [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
    echo "Setting up .venv (first run takes a minute)..."
    "$PYTHON" -m venv .venv
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
    touch .venv/.installed
fi
