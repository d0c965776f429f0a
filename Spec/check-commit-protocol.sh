#!/usr/bin/env bash
# Model-checks Spec/commit-protocol.pml with spin: the good protocol must pass with no error,
# and every known-bad variant must be rejected (spin finds an assertion violation).
# Prints the states explored for each. Exits non-zero if any expectation fails.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
command -v spin >/dev/null || { echo "spin is not installed (Debian: apt-get install -y spin)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/commit-protocol.pml" "$work/"
cd "$work"

failed=0
check() {  # check NAME EXPECTATION [spin -D flag]
    local name="$1" expect="$2" flag="${3:-}"
    spin $flag -a commit-protocol.pml > spin.log
    gcc -O2 -w -DSAFETY -o pan pan.c
    ./pan -m100000 > pan.log || true
    local errors states violation
    errors=$(grep -o 'errors: [0-9]*' pan.log | grep -o '[0-9]*$')
    states=$(grep -o '[0-9]* states, stored' pan.log | grep -o '^[0-9]*')
    violation=$(grep -m1 'assertion violated' pan.log | sed 's/^pan:[0-9]*: //' || true)
    if [[ "$expect" == pass && "$errors" == 0 ]] || [[ "$expect" == fail && "$errors" != 0 ]]; then
        printf 'ok    %-16s %-5s %7s states  %s\n' "$name" "$expect" "$states" "$violation"
    else
        printf 'FAIL  %-16s expected %s, spin reported %s errors (%s states) %s\n' \
            "$name" "$expect" "$errors" "$states" "$violation"
        failed=1
    fi
}

check good           pass
check no-phase1-sync fail -DNO_PHASE1_SYNC
check single-slot    fail -DSINGLE_SLOT
check reuse-pinned   fail -DREUSE_PINNED
check reuse-durable  fail -DREUSE_DURABLE
exit $failed
