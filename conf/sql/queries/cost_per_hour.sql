-- Cost per hour of trace time, per policy and controller: the node (execution) and tardiness cost accrued by the end
-- of each hour (cumulative, as the controller reports it at its last rescheduling in the hour), the hour's increase of
-- the total, and the hour's peak cost rate and busy GPUs. The last hour's execution_cost, summed over controllers, is
-- metrics.json's executionCost.
WITH hourly AS (
  SELECT
    policy,
    controller,
    window_start,
    MAX(accruedExecutionCost) AS execution_cost,
    MAX(accruedTardinessCost) AS tardiness_cost,
    MAX(costRatePerHour) AS peak_cost_rate_per_hour,
    MAX(busyGpus) AS peak_busy_gpus,
    COUNT(*) AS reschedulings
  FROM TABLE(TUMBLE(TABLE scheduling_metrics, DESCRIPTOR(event_time), INTERVAL '1' HOUR))
  GROUP BY policy, controller, window_start, window_end
)
SELECT
  policy,
  controller,
  window_start,
  execution_cost,
  tardiness_cost,
  execution_cost + tardiness_cost
    - COALESCE(LAG(execution_cost + tardiness_cost) OVER (PARTITION BY policy, controller ORDER BY window_start), 0)
    AS cost_in_hour,
  peak_cost_rate_per_hour,
  peak_busy_gpus,
  reschedulings
FROM hourly
ORDER BY policy, controller, window_start;
