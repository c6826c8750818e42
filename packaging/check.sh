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

run_pytest() {
  local code
  set +e
  "$bin/python" -m pytest "$@"
  code=$?
  set -e
  # pytest exits 5 when it collected nothing; that must fail loudly, not pass.
  if [ "$code" -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi
  [ "$code" -eq 0 ] || exit "$code"
}

echo "== coverage floor (core/crypto, core/log at 100%)"
# A focused pass over the tests of the key, codec and chain code plus the seam contracts:
# about half a minute, instead of tracing the whole suite.
"$bin/python" -m pytest -q -rN -p no:cacheprovider --no-header \
  --cov=core/crypto --cov=core/log --cov-report=term-missing --cov-fail-under=100 \
  tests/core/crypto tests/core/log/test_hash_chain.py \
  tests/core/workflows/test_integrity.py \
  tests/app/test_hostile_input.py \
  tests/fuzz/test_fuzz_files.py tests/contracts
echo "== pytest"
# One worker per core, each test file kept on one worker (a file's module-scoped servers
# and stores stay together); each worker starts its own PostgreSQL server.
run_pytest -n "${MEMORY_CENTER_TEST_WORKERS:-2}" --dist loadfile "$@"
# The installable build: a wheel and the one-folder desktop program, each run as a user
# would (tests marked `build`, which the run above leaves out).
echo "== desktop build"; packaging/build.sh
echo "== desktop build and install tests"
run_pytest -m build tests/packaging -p no:cacheprovider
