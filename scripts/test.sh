#!/usr/bin/env bash
# Set up a fresh machine for the tests and run them: Chromium (the report test renders the page
# headless), the package with its test extras, then pytest. Exit status is pytest's.
# `scripts/test.sh -m fast`: the fast tier only (unit tests, no job, no Ray; under a minute).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq chromium >/dev/null
fi
python -m pip install -q --disable-pip-version-check -e ".[test]"
# The 15 slowest tests are printed so a slow one shows in CI's log. One pytest run over everything:
# a marker or path in "$@" that selects nothing exits 5 and fails the script.
python -m pytest -q -p no:cacheprovider --durations=15 "$@"
