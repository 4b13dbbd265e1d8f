-- Power over time of a placement run (run --nodes, policies pwr, fgd, pwr-fgd, ...): per run and hour of trace time
-- the mean and peak estimated power (EOPC: CPU + GPU watts after each decision), tasks running and GPU
-- fragmentation.
SELECT
  run,
  window_start,
  COUNT(*) AS decisions,
  AVG(eopcCpuWatts + eopcGpuWatts) AS mean_watts,
  MAX(eopcCpuWatts + eopcGpuWatts) AS peak_watts,
  MAX(`running`) AS peak_running_tasks,
  AVG(fragmentedGpus) AS mean_fragmented_gpus
FROM TABLE(TUMBLE(TABLE pod_placements, DESCRIPTOR(event_time), INTERVAL '1' HOUR))
GROUP BY run, window_start, window_end
ORDER BY run, window_start;
