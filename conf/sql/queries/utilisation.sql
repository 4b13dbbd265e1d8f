-- GPU utilisation over time: busy GPU-hours per policy and hour of trace time (= the hour's mean busy GPUs), with the
-- mean queue length and running jobs weighted by time. Between two reschedulings of a controller its busy GPUs are
-- constant; each such interval is counted in the hour it starts.
WITH steps AS (
  SELECT
    policy,
    controller,
    `time`,
    busyGpus,
    queueLength,
    `running`,
    ROW_NUMBER() OVER (PARTITION BY policy, controller ORDER BY `time`) AS n
  FROM scheduling_metrics
),
intervals AS (
  SELECT
    s.policy,
    FLOOR(s.`time` / 3600) * 3600 AS hour_start_seconds,
    nx.`time` - s.`time` AS seconds,
    s.busyGpus,
    s.queueLength,
    s.`running`
  FROM steps s
  JOIN steps nx ON nx.policy = s.policy AND nx.controller = s.controller AND nx.n = s.n + 1
)
SELECT
  policy,
  hour_start_seconds,
  SUM(busyGpus * seconds) / 3600 AS busy_gpu_hours,
  SUM(queueLength * seconds) / 3600 AS mean_queue_length,
  SUM(`running` * seconds) / 3600 AS mean_running_jobs
FROM intervals
GROUP BY policy, hour_start_seconds
ORDER BY policy, hour_start_seconds;
