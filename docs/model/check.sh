#!/usr/bin/env bash
# Model-checks lease.pml with spin: the protocol must verify with 0 errors over its whole state space, and each
# broken variant must be refuted (spin finds a counterexample, printed here), so the model demonstrably checks
# something. Exits non-zero on any other outcome, and when spin or a C compiler is missing.
# Usage: docs/model/check.sh            (about a minute on a quiet 2-core machine)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

for tool in spin gcc; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "check.sh: '$tool' is not installed (Debian: apt-get install spin gcc)" >&2
    exit 2
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/lease.pml" "$work/"
cd "$work"

failures=0

# check <verified|refuted> <name> <spin -D flags...>
check() {
  local expect=$1 name=$2
  shift 2
  local start=$SECONDS
  rm -f pan pan.* lease.pml.trail out.txt
  if ! spin "$@" -a lease.pml >spin.txt 2>&1; then
    cat spin.txt
    echo "FAIL  $name: spin could not translate the model ($*)"
    failures=$((failures + 1))
    return
  fi
  # breadth-first where a counterexample is expected: the shortest one
  gcc -w -O2 -DSAFETY -DCOLLAPSE $([[ $expect == refuted ]] && echo -DBFS) -o pan pan.c
  ./pan -m2000000 >out.txt 2>&1 || true
  local errors states
  errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' out.txt | head -1)
  states=$(sed -n 's/^ *\([0-9]*\) states, stored.*/\1/p' out.txt | head -1)
  local took=$((SECONDS - start))
  if [[ -z "$errors" ]] || grep -q "max search depth too small" out.txt; then
    cat out.txt
    echo "FAIL  $name: the search did not complete ($*)"
    failures=$((failures + 1))
  elif [[ $expect == verified && $errors == 0 ]]; then
    printf 'ok    %-22s verified: 0 errors in %s states, %ss  (%s)\n' "$name" "$states" "$took" "$*"
  elif [[ $expect == refuted && $errors != 0 && -f lease.pml.trail ]]; then
    printf 'ok    %-22s refuted as it must be: %s  (%s)\n' "$name" \
      "$(grep -m1 -E 'assertion violated' out.txt | sed 's/^pan:1: //')" "$*"
    spin "$@" -t lease.pml 2>&1 | grep -E '^\s*(tick|holder|backend|resource)' | sed 's/^\s*/        /'
  else
    cat out.txt
    echo "FAIL  $name: expected $expect, spin found $errors errors ($*)"
    [[ -f lease.pml.trail ]] && spin "$@" -t lease.pml 2>&1 | grep -E '^\s*(tick|holder|backend|resource)' | sed 's/^\s*//'
    failures=$((failures + 1))
  fi
}

echo "== the protocol (lease $(sed -n 's/^#define LEASE \([0-9]*\).*/\1/p' lease.pml), margin 1, drift 1, 2 holders)"
check verified validity          -DCHECK_VALIDITY
check verified validity-no-drift -DCHECK_VALIDITY -DMARGIN=0 -DDRIFT=0
check verified fencing           -DCHECK_FENCING -DFORGET

echo "== broken variants"
check refuted reply-time         -DCHECK_VALIDITY -DREPLY_TIME
check refuted bug-b              -DCHECK_VALIDITY -DBUG_B
check refuted unknown-once       -DCHECK_VALIDITY -DUNKNOWN_ONCE
check refuted margin-below-drift -DCHECK_VALIDITY -DMARGIN=0
check refuted validity-forget    -DCHECK_VALIDITY -DFORGET
check refuted fencing-token-reset -DCHECK_FENCING -DFORGET -DTOKEN_RESET

if ((failures > 0)); then
  echo "model check FAILED: $failures of 9"
  exit 1
fi
echo "model check passed: 3 verified, 6 refuted"
