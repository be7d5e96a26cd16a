#!/usr/bin/env bash
# sweep plan's estimates beside what the same sweep measured, for every committed experiment (or the specs given),
# each swept afresh into a temporary directory with -j 2 (or J=N):
#   time:   the plan's time on J workers beside the sweep's wall-clock time and its CPU time / J (GNU time's %e, %U+%S);
#   memory: the plan's memory beside the peak resident memory (ru_maxrss, %M).
#   bash bench/plan.sh [SPEC...]
# Prints one line per spec: the plan's time beside the wall clock and beside the CPU time over J (what the wall clock
# would be with J idle cores and no serial tail), their ratios, and the memory. Exits 1 when the time ratio against
# the CPU time (for a sweep of 0.1 s or more) or the memory ratio lies outside [0.5, 2]. The wall clock is printed, not judged: on a shared machine
# it stretches with everyone else's work (the load average is printed before and after). Resident memory does not
# depend on what else the machine runs.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { echo "plan.sh: needs GNU time (/usr/bin/time; Debian: apt-get install time)" >&2; exit 2; }
J=${J:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/sweep" ./cmd/sweep # as make builds bin/sweep
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(experiments/*.toml)
bad=0
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-18s %9s %9s %6s %9s %6s   %8s %8s %6s\n' spec plan wall ratio cpu/j ratio plan rss ratio
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
rw, rc, rm = secs / max(wall, 0.01), secs / max(cpu, 0.01), mem / rss
flag = "" if (0.5 <= rc <= 2 or wall < 0.1) and 0.5 <= rm <= 2 else "  OUTSIDE 2x"
if wall < 0.1:
    flag += "  (time: too short to judge)"
print(f"{sys.argv[3]:<18} {secs:8.2f}s {wall:8.2f}s {rw:6.2f} {cpu:8.2f}s {rc:6.2f}   {mem/1e6:5.0f} MB {rss/1e6:5.0f} MB {rm:6.2f}{flag}")
PY
)
  echo "$line"
  case $line in *OUTSIDE*) bad=1 ;; esac
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $bad
