#!/usr/bin/env python3
"""Prototype (outside the product code) of other dispatch rules for the K local controllers, run through the real
`gpusched compare --controllers K`: every node type is renamed per controller (`T~cC`, same GPUs and costs), node i
stays with controller i mod K, and each job keeps only the configurations of the controller a rule assigns it to,
so the product's dispatcher (round robin, skipping controllers that cannot run the job) must send it there.
Rules (all static, in submission order, blind to the controllers' load, as the paper's round robin):
  rr         plain round robin (validation: must match the product's K-controller run)
  wrr-gpus   smooth weighted round robin, weight = the controller's GPUs
  wrr-speed  smooth weighted round robin, weight = the controller's GPUs x relative GPU speed (median over the
             trace's jobs of fastest 1-GPU time / this type's 1-GPU time)
Usage: emulate_dispatch.py INSTANCE_DIR K RULE OUT_DIR"""
import copy, json, sys, os, statistics, yaml

inst, K, rule, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
cluster = yaml.safe_load(open(f"{inst}/cluster.yaml"))
jobs = [json.loads(l) for l in open(f"{inst}/trace.jsonl")]
nodes = cluster["nodes"]
owner = [i % K for i in range(len(nodes))]
types = cluster["nodeTypes"]
speed = {}
for t in types:
    ratios = []
    for j in jobs:
        ones = {u: m["1"] for u, m in j["times"].items() if "1" in m}
        if t in ones: ratios.append(min(ones.values()) / ones[t])
    speed[t] = statistics.median(ratios)
weight = [0.0] * K
for i, n in enumerate(nodes):
    g = types[n["type"]]["gpus"]
    weight[owner[i]] += g * (speed[n["type"]] if rule == "wrr-speed" else 1)
current = [0.0] * K
assign = []
for k, j in enumerate(jobs):
    if rule == "rr":
        c = k % K
    else:
        for x in range(K): current[x] += weight[x]
        c = max(range(K), key=lambda x: (current[x], -x))
        current[c] -= sum(weight)
    assign.append(c)
os.makedirs(out, exist_ok=True)
cluster["nodeTypes"] = {f"{t}~c{c}": copy.deepcopy(spec) for c in range(K) for t, spec in types.items()}
cluster["nodes"] = [dict(n, type=f"{n['type']}~c{owner[i]}") for i, n in enumerate(nodes)]
yaml.safe_dump(cluster, open(f"{out}/cluster.yaml", "w"), sort_keys=False)
with open(f"{out}/trace.jsonl", "w") as f:
    for j, c in zip(jobs, assign):
        j = dict(j, times={f"{t}~c{c}": m for t, m in j["times"].items()})
        f.write(json.dumps(j) + "\n")
counts = [assign.count(c) for c in range(K)]
print(f"{rule}: speeds {speed}; weights {sorted(set(round(w, 2) for w in weight))}; jobs per controller {sorted(set(counts))}")
