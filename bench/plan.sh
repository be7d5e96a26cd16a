#!/usr/bin/env bash
# sweep plan's estimates beside what the same sweep measured, for every committed experiment (or the specs given),
# each swept afresh into a temporary directory with -j 2 (or J=N):
#   time:   the plan's time on J workers beside the sweep's wall-clock time and its CPU time / J (GNU time's %e, %U+%S);
#   memory: the plan's memory beside the peak resident memory (ru_maxrss, %M).
#   bash bench/plan.sh [SPEC...]
# Prints one line per spec and exits 1 when a ratio estimate/measured lies outside [0.5, 2] (time: against the wall
# clock; on a busy machine the wall clock stretches, so read the CPU column beside it). Resident memory does not depend
# on what else the machine runs.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { echo "plan.sh: needs GNU time (/usr/bin/time; Debian: apt-get install time)" >&2; exit 2; }
J=${J:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/sweep" ./cmd/sweep
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(experiments/*.toml)
bad=0
printf '%-18s %9s %9s %9s %6s   %8s %8s %6s\n' spec plan wall cpu/j ratio plan rss ratio
for f in "${specs[@]}"; do
  "$work/sweep" plan -j "$J" "$f" >"$work/plan"
  rm -rf "$work/out"
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$work/sweep" -j "$J" -o "$work/out" "$f" >/dev/null 2>&1
  read -r line < <(python3 - "$work/plan" "$work/time" "$(basename "$f" .toml)" "$J" <<'PY'
import re, sys
plan = open(sys.argv[1]).read()
wall, user, sys_, kb = open(sys.argv[2]).read().split()
j = int(sys.argv[4])
secs = float(re.search(r"^estimated time: ([0-9.]+) s on", plan, re.M).group(1))
v, unit = re.search(r"^estimated memory: ([0-9.]+) ([kMGT]?B) ", plan, re.M).groups()
mem = float(v) * {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}[unit]
wall, cpu, rss = float(wall), (float(user) + float(sys_)) / j, float(kb) * 1024
rt, rm = secs / max(wall, 0.01), mem / rss
flag = "" if 0.5 <= rt <= 2 and 0.5 <= rm <= 2 else "  OUTSIDE 2x"
print(f"{sys.argv[3]:<18} {secs:8.2f}s {wall:8.2f}s {cpu:8.2f}s {rt:6.2f}   {mem/1e6:5.0f} MB {rss/1e6:5.0f} MB {rm:6.2f}{flag}")
PY
)
  echo "$line"
  case $line in *OUTSIDE*) bad=1 ;; esac
done
exit $bad
