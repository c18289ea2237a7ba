# Helpers for the sdlab scenarios (sourced; runs as root in the guest). Every check writes one line to
# /out/summary.txt: "PASS|FAIL|SKIP <step>: <what was asserted> (<measurement>)".
FAILS=0
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
pass() { echo "PASS $1: $2" | tee -a /out/summary.txt; }
fail() { echo "FAIL $1: $2" | tee -a /out/summary.txt; FAILS=$((FAILS + 1)); }
skip() { echo "SKIP $1: $2" | tee -a /out/summary.txt; }
# check STEP WHAT COMMAND...: PASS when the command succeeds.
check() { local step=$1 what=$2; shift 2; if "$@"; then pass "$step" "$what"; else fail "$step" "$what"; fi; }
# wait_until SECONDS COMMAND...: polls every 0.25 s; fails after SECONDS.
wait_until() {
  local limit=$1; shift
  local start; start=$(now)
  until "$@"; do
    [ "$(awk -v a="$start" -v b="$(now)" -v l="$limit" 'BEGIN { print (b - a > l) }')" = 1 ] && return 1
    sleep 0.25
  done
}
# secret_absent SECRET FILE...: SECRET is in none of the files (the pattern from a file descriptor, and a function's
# arguments are no command line: the check itself never shows the secret to `ps`).
secret_absent() { local secret=$1; shift; ! grep -qaF -f <(printf '%s\n' "$secret") "$@"; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
# json FILTER: reads JSON on stdin, prints the Python expression FILTER evaluated on it as `j`.
json() { python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }
unit() { systemctl show -p "$1" --value heartd.service; }
