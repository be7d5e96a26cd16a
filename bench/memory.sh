#!/usr/bin/env bash
# sweep plan's memory estimate beside the measured peak resident memory (ru_maxrss, GNU time's %M) of the same sweep,
# for every committed experiment (or the specs given), each swept afresh into a temporary directory with -j 2.
#   bash bench/memory.sh [SPEC...]
# Prints one line per spec (estimate, measured, estimate/measured) and exits 1 when a ratio lies outside [0.5, 2].
# Resident memory does not depend on what else the machine runs, so a busy machine only makes this slower.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { echo "memory.sh: needs GNU time (/usr/bin/time; Debian: apt-get install time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/sweep" ./cmd/sweep
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(experiments/*.toml)
bad=0
printf '%-24s %10s %10s %6s\n' spec estimate measured ratio
for f in "${specs[@]}"; do
  est=$("$work/sweep" plan -j 2 "$f" | sed -n 's/^estimated memory: \([0-9.]*\) \([kMGT]*B\) .*/\1 \2/p')
  rm -rf "$work/out"
  kb=$(/usr/bin/time -f '%M' -o "$work/rss" "$work/sweep" -j 2 -o "$work/out" "$f" >/dev/null 2>&1 && cat "$work/rss")
  read -r line < <(python3 - "$est" "$kb" "$(basename "$f" .toml)" <<'PY'
import sys
v, unit = sys.argv[1].split()
est = float(v) * {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}[unit]
rss = float(sys.argv[2]) * 1024
r = est / rss
print(f"{sys.argv[3]:<24} {est/1e6:8.0f} MB {rss/1e6:7.0f} MB {r:6.2f}{'' if 0.5 <= r <= 2 else '  OUTSIDE 2x'}")
PY
)
  echo "$line"
  case $line in *OUTSIDE*) bad=1 ;; esac
done
exit $bad
