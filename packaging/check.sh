#!/usr/bin/env bash
# Every check the project has, in the order that fails fastest. Run through bootstrap.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export QT_QPA_PLATFORM=offscreen OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
# The PostgreSQL backend's tests must run here, not skip (tests/support/postgres.py).
export MEMORY_CENTER_TEST_POSTGRES="${MEMORY_CENTER_TEST_POSTGRES:-require}"
bin=.venv/bin

echo "== ruff (lint)";   "$bin/ruff" check .
echo "== ruff (format)"; "$bin/ruff" format --check .
echo "== mypy";          "$bin/mypy" core app ui
echo "== import contracts"; "$bin/lint-imports"
echo "== pytest"
set +e
"$bin/python" -m pytest "$@"
code=$?
set -e
# pytest exits 5 when it collected nothing; that must fail loudly, not pass.
if [ "$code" -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi
exit "$code"
