#!/usr/bin/env bash
# Set up a fresh machine for the tests and run them: Chromium (the report test renders the page
# headless), the package with its test extras, then pytest. Exit status is pytest's.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq chromium >/dev/null
fi
python -m pip install -q --disable-pip-version-check -e ".[test]"
python -m pytest -q -p no:cacheprovider "$@"
