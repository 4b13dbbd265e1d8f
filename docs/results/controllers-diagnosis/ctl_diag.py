#!/usr/bin/env python3
"""Diagnosis of K local controllers from a run directory (decisions.jsonl, jobs.jsonl, run.json): per controller the
nodes it owns, the jobs it got, their tardiness; and the job-seconds a job waited (not running) while a node of
another controller had no busy GPU ("stranded waits"), against waits while a node of its own controller was idle."""
import json, sys, collections

def analyse(run):
    nodes = json.load(open(f"{run}/run.json"))["nodes"]
    ntype = {n["id"]: n["type"] for n in nodes}
    gpus = {n["id"]: n["gpus"] for n in nodes}
    K = json.load(open(f"{run}/run.json"))["controllers"]
    node_ctl = {n["id"]: i % K for i, n in enumerate(nodes)}  # node i -> controller i mod K (documented dispatch)
    jobs = {}
    for l in open(f"{run}/jobs.jsonl"):
        j = json.loads(l); jobs[j["id"]] = j
    decs = [json.loads(l) for l in open(f"{run}/decisions.jsonl")]
    job_ctl = {}
    for d in decs:
        job_ctl.setdefault(d["job"], d["controller"])
        if d.get("node") and d["action"] != "COMPLETE":
            assert K == 1 or node_ctl[d["node"]] == d["controller"], (d, node_ctl[d["node"]])
    # events: submissions and decisions in time order
    events = [(j["submit"], 0, "SUBMIT", jid, None, 0) for jid, j in jobs.items()]
    for d in decs:
        events.append((d["time"], 1, d["action"], d["job"], d.get("node"), d.get("gpus", 0)))
    events.sort(key=lambda e: (e[0], e[1]))
    busy = collections.Counter()        # node -> busy GPUs
    where = {}                          # job -> (node, gpus) while running
    waiting = set()
    stranded = own_idle = waited = 0.0
    stranded_by_ctl = collections.Counter()
    last = 0.0
    completion = {}
    ctls = sorted(set(node_ctl.values()))
    for t, _, action, job, node, g in events:
        dt = t - last
        if dt > 0 and waiting:
            idle_ctl = {c: False for c in ctls}
            for n in ntype:
                if busy[n] == 0: idle_ctl[node_ctl[n]] = True
            for w in waiting:
                c = job_ctl.get(w, 0)
                waited += dt
                if idle_ctl[c]: own_idle += dt
                elif any(v for k, v in idle_ctl.items() if k != c):
                    stranded += dt; stranded_by_ctl[c] += dt
        last = t
        if action == "SUBMIT": waiting.add(job)
        elif action in ("START", "MIGRATE", "RESIZE"):
            if job in where: busy[where[job][0]] -= where[job][1]
            where[job] = (node, g); busy[node] += g; waiting.discard(job)
        elif action == "PREEMPT":
            busy[where[job][0]] -= where[job][1]; del where[job]; waiting.add(job)
        elif action == "COMPLETE":
            if job in where: busy[where[job][0]] -= where[job][1]; del where[job]
            completion[job] = t
    per = collections.defaultdict(lambda: collections.Counter())
    for n, c in node_ctl.items(): per[c][ntype[n].split("~")[0]] += 1   # emulate_dispatch.py's per-controller type names
    late = collections.Counter(); tard = collections.Counter(); njobs = collections.Counter()
    for jid, j in jobs.items():
        c = job_ctl.get(jid, 0); njobs[c] += 1
        if completion[jid] > j["due"] + 1e-6:
            late[c] += 1; tard[c] += j["weight"] * (completion[jid] - j["due"]) / 3600
    return dict(K=K, per=per, late=late, tard=tard, njobs=njobs, stranded=stranded, own_idle=own_idle, waited=waited,
                stranded_by_ctl=stranded_by_ctl)

if __name__ == "__main__":
    for run in sys.argv[1:]:
        r = analyse(run)
        print(f"== {run}: K={r['K']}  job-seconds waiting {r['waited']:.0f}, of which while an own node idle {r['own_idle']:.0f}, "
              f"while own nodes all busy but another controller's node idle (stranded) {r['stranded']:.0f}")
        print(f"   tardy jobs {sum(r['late'].values())}, tardiness {sum(r['tard'].values()):.2f}")
        if r["K"] > 1:
            groups = collections.defaultdict(lambda: [0, 0, 0.0, 0, 0.0])
            for c, comp in r["per"].items():
                key = ", ".join(f"{v}x {k}" for k, v in sorted(comp.items()))
                gr = groups[key]; gr[0] += 1; gr[1] += r["late"][c]; gr[2] += r["tard"][c]; gr[3] += r["njobs"][c]; gr[4] += r["stranded_by_ctl"][c]
            for key, (n, late, tard, nj, st) in sorted(groups.items()):
                print(f"   {n:2d} controllers with {key}: jobs {nj}, tardy {late}, tardiness cost {tard:.2f}, stranded wait {st:.0f} job-s")
