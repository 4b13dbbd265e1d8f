-- Tardiness by policy: finished jobs, late jobs, their tardiness cost, mean job completion time and the worst delay.
-- The figures of metrics.json (completedJobs, tardyJobs, tardinessCost, meanJctSeconds) for the same run.
SELECT
  policy,
  COUNT(*) AS completed_jobs,
  SUM(CASE WHEN tardinessSeconds > 0 THEN 1 ELSE 0 END) AS tardy_jobs,
  SUM(tardinessCost) AS tardiness_cost,
  AVG(jctSeconds) AS mean_jct_seconds,
  MAX(tardinessSeconds) AS max_tardiness_seconds
FROM job_metrics
GROUP BY policy
ORDER BY policy;
