#!/usr/bin/env bash
# The Python client's tests (python/tests) under pytest, against this checkout's ./pinshard: the test step after
# `mvn verify` (.ci/run runs it with --junitxml, so a failure names its test). Writes the two small datasets the
# tests serve with fixtures' ServeTestData, on the class path serve's build wrote (scripts/module-classpath.sh: no
# Maven after `mvn verify`), then runs pytest with PINSHARD_COMMAND, PINSHARD_TEST_DATASET, PINSHARD_TEST_RECORDS
# and PINSHARD_TEST_FIELDS_DATASET set, leaving no pytest cache or Hypothesis database in the checkout. Arguments go
# to pytest (e.g. --junitxml FILE, -k NAME, -x).
# Needs Debian's /usr/bin/python3 with torch, numpy and pytest (apt-get install python3-torch python3-numpy
# python3-pytest); without them it says which is missing and exits 0, the tests skipped (PINSHARD_REQUIRE_PYTHON=1:
# exits 1 instead).
# Usage: scripts/test-python.sh [PYTEST_ARGS...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python=/usr/bin/python3
records=50
missing=()
if [[ -x "$python" ]]; then
  for module in torch numpy pytest; do
    "$python" -c "import $module" >/dev/null 2>&1 || missing+=("$module")
  done
else
  missing+=("$python")
fi
if (( ${#missing[@]} )); then
  echo "test-python: SKIPPED, $python lacks ${missing[*]} (apt-get install python3-torch python3-numpy python3-pytest)" >&2
  [[ "${PINSHARD_REQUIRE_PYTHON:-0}" == 1 ]] && exit 1
  exit 0
fi
data="$(mktemp -d "${TMPDIR:-/tmp}/pinshard-python-tests.XXXXXX")"
trap 'rm -rf -- "$data"' EXIT
classpath="$("$root/scripts/module-classpath.sh" --tests serve)"
jvm_flags="$("$root/scripts/jvm-flags.sh" java)"  # fails the script when the pom lacks them
read -r -a flags <<< "$jvm_flags"
java "${flags[@]}" -cp "$classpath" io.pinshard.fixtures.ServeTestData "$data" "$records"
cd "$root"
PINSHARD_COMMAND="[\"$root/pinshard\"]" PINSHARD_TEST_DATASET="$data/data" PINSHARD_TEST_RECORDS="$records" \
  PINSHARD_TEST_FIELDS_DATASET="$data/fields" \
  "$python" -m pytest -p no:cacheprovider -p no:hypothesispytest -v -rs python/tests "$@"
