-- The gpusched output topics as Flink SQL tables (format gpusched-avro: docs/analytics.md).
-- `gpusched sql` fills in the placeholders; for Flink's own SQL client, replace them by hand:
--   ${bootstrap}    Kafka bootstrap servers, e.g. 127.0.0.1:9092
--   ${prefix}       the deployment's topic prefix (run --topic-prefix), usually empty
--   ${bounded}      latest-offset (read up to the end at the query's start, then finish) or unbounded (follow)
-- Event time: every table has event_time (TIMESTAMP_LTZ(3), seconds of trace time from 1970-01-01 UTC) with a
-- watermark 10 minutes of trace time behind the latest record, so windows on a followed topic close.
-- Records are read committed: a transactional (exactly-once) run's aborted writes are never seen.

CREATE TABLE decisions (
  `time` DOUBLE,
  job STRING,
  action STRING,
  node STRING,
  type STRING,
  gpus INT,
  previousNode STRING,
  expectedCompletion DOUBLE,
  expectedCost DOUBLE,
  policy STRING,
  controller INT,
  seq BIGINT,
  reason STRING,
  event_time AS TO_TIMESTAMP_LTZ(CAST(`time` * 1000 AS BIGINT), 3),
  WATERMARK FOR event_time AS event_time - INTERVAL '10' MINUTE
) WITH (
  'connector' = 'kafka',
  'topic' = '${prefix}gpusched.decisions',
  'properties.bootstrap.servers' = '${bootstrap}',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = '${bounded}',
  'format' = 'gpusched-avro',
  'gpusched-avro.record' = 'PlacementDecision'
);

CREATE TABLE scheduling_metrics (
  `time` DOUBLE,
  policy STRING,
  controller INT,
  `trigger` STRING,
  fObj DOUBLE,
  optimizerNanos BIGINT,
  queueLength INT,
  `running` INT,
  decisions INT,
  accruedExecutionCost DOUBLE,
  accruedTardinessCost DOUBLE,
  completedJobs BIGINT,
  busyGpus INT,
  costRatePerHour DOUBLE,
  deadlinePressure BOOLEAN,
  event_time AS TO_TIMESTAMP_LTZ(CAST(`time` * 1000 AS BIGINT), 3),
  WATERMARK FOR event_time AS event_time - INTERVAL '10' MINUTE
) WITH (
  'connector' = 'kafka',
  'topic' = '${prefix}gpusched.metrics.scheduling',
  'properties.bootstrap.servers' = '${bootstrap}',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = '${bounded}',
  'format' = 'gpusched-avro',
  'gpusched-avro.record' = 'SchedulingMetrics'
);

CREATE TABLE job_metrics (
  `time` DOUBLE,
  job STRING,
  policy STRING,
  controller INT,
  submit DOUBLE,
  due DOUBLE,
  weight DOUBLE,
  firstStart DOUBLE,
  jctSeconds DOUBLE,
  tardinessSeconds DOUBLE,
  tardinessCost DOUBLE,
  preemptions INT,
  migrations INT,
  resizes INT,
  actualFactor DOUBLE,
  event_time AS TO_TIMESTAMP_LTZ(CAST(`time` * 1000 AS BIGINT), 3),
  WATERMARK FOR event_time AS event_time - INTERVAL '10' MINUTE
) WITH (
  'connector' = 'kafka',
  'topic' = '${prefix}gpusched.metrics.jobs',
  'properties.bootstrap.servers' = '${bootstrap}',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = '${bounded}',
  'format' = 'gpusched-avro',
  'gpusched-avro.record' = 'JobMetrics'
);

CREATE TABLE completions (
  `time` DOUBLE,
  job STRING,
  node STRING,
  type STRING,
  gpus INT,
  policy STRING,
  controller INT,
  event_time AS TO_TIMESTAMP_LTZ(CAST(`time` * 1000 AS BIGINT), 3),
  WATERMARK FOR event_time AS event_time - INTERVAL '10' MINUTE
) WITH (
  'connector' = 'kafka',
  'topic' = '${prefix}gpusched.jobs.completed',
  'properties.bootstrap.servers' = '${bootstrap}',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = '${bounded}',
  'format' = 'gpusched-avro',
  'gpusched-avro.record' = 'JobCompleted'
);

CREATE TABLE pod_placements (
  run STRING,
  `time` BIGINT,
  task STRING,
  seq BIGINT,
  action STRING,
  node STRING,
  gpus ARRAY<INT>,
  gpuMilli INT,
  `running` INT,
  eopcCpuWatts DOUBLE,
  eopcGpuWatts DOUBLE,
  allocatedGpuFraction DOUBLE,
  fragmentedGpus DOUBLE,
  event_time AS TO_TIMESTAMP_LTZ(`time` * 1000, 3),
  WATERMARK FOR event_time AS event_time - INTERVAL '10' MINUTE
) WITH (
  'connector' = 'kafka',
  'topic' = '${prefix}gpusched.pod-placements',
  'properties.bootstrap.servers' = '${bootstrap}',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = '${bounded}',
  'format' = 'gpusched-avro',
  'gpusched-avro.record' = 'PodPlacement'
);

-- Rejected records carry no trace time: their event time is the Kafka record's timestamp (wall clock of the write).
CREATE TABLE rejected (
  source STRING,
  `position` STRING,
  `text` STRING,
  `bytes` BYTES,
  reason STRING,
  field STRING,
  event_time TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = '${prefix}gpusched.rejected',
  'properties.bootstrap.servers' = '${bootstrap}',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = '${bounded}',
  'format' = 'gpusched-avro',
  'gpusched-avro.record' = 'RejectedRecord'
);
