-- GPU-hours per node type and policy, from the decisions: a job holds `gpus` GPUs of `type` from a START, RESIZE or
-- MIGRATE until its next decision (PREEMPT, COMPLETE, or another move). A node's price depends on how many of its GPUs
-- are busy (costPerHour[type][busy GPUs]), so money per node type is not a sum over jobs; these are the hours it is
-- charged for, per type.
WITH steps AS (
  SELECT
    policy,
    job,
    action,
    type,
    gpus,
    `time`,
    ROW_NUMBER() OVER (PARTITION BY policy, job ORDER BY seq) AS n
  FROM decisions
)
SELECT
  p.policy,
  p.type,
  COUNT(DISTINCT p.job) AS jobs,
  SUM(p.gpus * (nx.`time` - p.`time`)) / 3600 AS gpu_hours
FROM steps p
JOIN steps nx ON nx.policy = p.policy AND nx.job = p.job AND nx.n = p.n + 1
WHERE p.action IN ('START', 'RESIZE', 'MIGRATE')
GROUP BY p.policy, p.type
ORDER BY p.policy, p.type;
