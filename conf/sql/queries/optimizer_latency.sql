-- Optimizer latency per policy: wall time of the policy calls (reschedulings that needed none are left out), nearest
-- rank percentiles in milliseconds; p50 and p99 are metrics.json's optimizerMedianMs and optimizerP99Ms.
WITH calls AS (
  SELECT
    policy,
    optimizerNanos,
    ROW_NUMBER() OVER (PARTITION BY policy ORDER BY optimizerNanos) AS r,
    COUNT(*) OVER (PARTITION BY policy) AS n
  FROM scheduling_metrics
  WHERE optimizerNanos > 0
)
SELECT
  policy,
  MAX(n) AS calls,
  MAX(CASE WHEN r = CAST(CEIL(0.5E0 * n) AS BIGINT) THEN optimizerNanos END) / 1E6 AS p50_ms,
  MAX(CASE WHEN r = CAST(CEIL(0.9E0 * n) AS BIGINT) THEN optimizerNanos END) / 1E6 AS p90_ms,
  MAX(CASE WHEN r = CAST(CEIL(0.99E0 * n) AS BIGINT) THEN optimizerNanos END) / 1E6 AS p99_ms,
  MAX(optimizerNanos) / 1E6 AS max_ms
FROM calls
GROUP BY policy
ORDER BY policy;
