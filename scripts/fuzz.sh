#!/usr/bin/env bash
# Runs every fuzz target (func FuzzXxx in *_test.go) for a short time:
#   FUZZTIME=10s bash scripts/fuzz.sh        (make test uses 5s each)
# Failing inputs are written to the package's testdata/fuzz/ by go test;
# commit them so the case stays in the seed corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
fuzztime=${FUZZTIME:-5s}
status=0
while IFS= read -r file; do
  pkg="./$(dirname "$file")/"
  for name in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)' "$file" | awk '{print $2}'); do
    echo "fuzz $pkg $name ($fuzztime)"
    if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg" >/tmp/newsrank-fuzz.log 2>&1; then
      cat /tmp/newsrank-fuzz.log
      status=1
    fi
  done
done < <(git ls-files '*_test.go' | xargs grep -l '^func Fuzz' | sort)
exit $status
