#!/usr/bin/env bash
# The controllers diagnosis of docs/results.md ("Why K = N/5 controllers lose 18% at N = 100"): needs the instances
# and run directories of `bin/reproduce-results main* controllers*` under RUNS, python3 with PyYAML.
# 1) ctl_diag.py on the round-robin runs: per controller group, jobs, tardy jobs, waits beside another's idle node;
# 2) emulate_dispatch.py + `gpusched compare --controllers K`: the same controllers with another static dispatch
#    (rr = the product's round robin, as a check; wrr-gpus; wrr-speed), andreas-rg only; 3) collect.py -> dispatch.csv.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; ROOT="$(cd "$HERE/../../.." && pwd)"
GPUSCHED="${GPUSCHED:-$ROOT/bin/gpusched}"; RUNS="${RUNS:-$ROOT/runs/results}"; OUT="${OUT:-$ROOT/runs/dispatch}"
{ for s in 1 2 3; do for nk in 20:4 50:10 100:20; do
    python3 "$HERE/ctl_diag.py" "$RUNS/controllers/andreas-small-n${nk%:*}-s$s-k${nk#*:}-f0/andreas-rg" "$RUNS/main/andreas-small-n${nk%:*}-s$s-k1-f0/andreas-rg"
  done; done; } | sed "s|$ROOT/||g" >"$HERE/diagnosis.txt"
one() {  # SCENARIO N K SEED RULE
  local d="$OUT/$1-n$2-s$4-$5"
  [[ -f "$d/run/comparison.csv" ]] && return 0
  python3 "$HERE/emulate_dispatch.py" "$RUNS/instances/$1-n$2-s$4" "$3" "$5" "$d" >/dev/null
  "$GPUSCHED" compare --trace "$d/trace.jsonl" --cluster "$d/cluster.yaml" --policies andreas-rg --seeds "$4" --controllers "$3" --noise 0 --out "$d/run" >"$d/stdout"
}
one andreas-small 100 20 3 rr
for s in 1 2 3; do
  one andreas-small 20 4 "$s" wrr-gpus; one andreas-small 50 10 "$s" wrr-gpus; one andreas-small 100 20 "$s" wrr-gpus
  one andreas-small 100 20 "$s" wrr-speed; one andreas-large 100 20 "$s" wrr-gpus
  one andreas-large 20 4 "$s" wrr-gpus; one andreas-large 50 10 "$s" wrr-gpus
done
python3 "$HERE/collect.py" "$ROOT/docs/results" "$OUT" >"$HERE/dispatch.csv"
