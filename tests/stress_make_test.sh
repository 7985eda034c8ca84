#!/bin/sh
# Run `make test` ROUNDS times (default 3) while busy loops keep every core at 100 %:
# a suite that passes only on a quiet machine has a defect (issue #14). One pure-Python
# busy loop per core (`nproc`), started before the first round and stopped on exit.
# Prints pass/fail per round; exits 1 if any round failed. Logs: $TMPDIR/memhooks-stress.*
#
#   tests/stress_make_test.sh [ROUNDS]      or      make test-under-load ROUNDS=3
set -u
rounds=${1:-3}
case $rounds in '' | *[!0-9]*) echo "usage: $0 [ROUNDS]" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.." || exit 2
logs=$(mktemp -d "${TMPDIR:-/tmp}/memhooks-stress.XXXXXX")
busy=""
stop() {
    # Only the loops this script started, by their ids.
    [ -n "$busy" ] && kill $busy 2>/dev/null
    busy=""
}
trap stop EXIT
trap 'stop; exit 130' INT TERM
cores=$(nproc 2>/dev/null || echo 2)
for _ in $(seq "$cores"); do
    python3 -c 'while True: pass' &
    busy="$busy $!"
done
echo "load: $cores busy loops (pids$busy); logs in $logs"
failed=0
for round in $(seq "$rounds"); do
    start=$(date +%s)
    if make test >"$logs/round-$round.log" 2>&1; then
        result=pass
    else
        result=FAIL
        failed=$((failed + 1))
    fi
    summary=$(grep -E '^(=+ )?[0-9]+ (passed|failed)|(passed|failed).* in [0-9.]+s' \
        "$logs/round-$round.log" | tail -1)
    echo "round $round/$rounds: $result ($(($(date +%s) - start)) s) ${summary:-see $logs/round-$round.log}"
done
echo "$((rounds - failed)) of $rounds rounds passed under load"
[ "$failed" -eq 0 ]
