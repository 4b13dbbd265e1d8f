#!/usr/bin/env python3
"""Collects the dispatch prototype's runs (run.sh) beside the centralized (main.csv) and round-robin (controllers.csv)
andreas-rg costs of the same instances into dispatch.csv (stdout)."""
import csv, glob, json, os, re, sys

results, runs = sys.argv[1], sys.argv[2]   # docs/results, the prototype's run folder
def rows(name):
    with open(os.path.join(results, name + ".csv")) as f:
        return {(r["scenario"], r["nodes"], r["instanceSeed"]): r for r in csv.DictReader(f) if r["policy"] == "andreas-rg"}
central, rr = rows("main"), rows("controllers")
w = csv.writer(sys.stdout)
w.writerow(["scenario", "nodes", "instanceSeed", "controllers", "dispatch", "totalCost", "tardyJobs", "centralCost", "centralTardy",
            "roundRobinCost", "roundRobinTardy", "vsCentralPercent"])
for m in sorted(glob.glob(os.path.join(runs, "*", "run", "andreas-rg", "metrics.json"))):
    name = m.split(os.sep)[-4]                      # SCENARIO-nN-sS-RULE
    scen, n, seed, rule = re.fullmatch(r"(.+)-n(\d+)-s(\d+)-(.+)", name).groups()
    run = json.load(open(os.path.join(os.path.dirname(m), "run.json")))
    met = json.load(open(m))
    c, r = central[(scen, n, seed)], rr[(scen, n, seed)]
    w.writerow([scen, n, seed, run["controllers"], rule, f"{met['totalCost']:.6f}", met["tardyJobs"], c["totalCost"], c["tardyJobs"],
                r["totalCost"], r["tardyJobs"], f"{100 * (met['totalCost'] - float(c['totalCost'])) / float(c['totalCost']):+.2f}"])
