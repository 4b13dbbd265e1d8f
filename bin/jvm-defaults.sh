# shellcheck shell=bash
# JVM defaults of every gpusched process, sourced by bin/gpusched and bin/bench-replay (the pass-through runs with
# the same JVM as the job it is the ceiling of). The environment overrides each.
#
# GPUSCHED_GC: the collector. The parallel (throughput) collector by default: a replay is a batch job, and on 2 cores
# it ran the 100k-job fifo replay 8% faster than G1, whose concurrent threads compete with Flink's. Its young pauses
# (tens of ms at -Xmx2g) are far below what a scheduling decision waits for in live mode; set GPUSCHED_GC=-XX:+UseG1GC
# for G1.
#
# GPUSCHED_JIT: C2 inlining budgets. C2 compiled for about 1 of the 2 cores during a whole 100k-job replay (JFR:
# 10.5 s of compilation in a 13 s process); smaller inlining budgets make that work lighter: fifo 100k at K = 200
# 8.0 -> 6.6 s, andreas-rg 100k at K = 200 14.4 -> 11.2 s, a 1M-job replay unchanged (49.8 / 48.7 s). An
# optimizer-bound run (andreas-rg 10k at K = 5, 36 s) is about 6% slower with them: set GPUSCHED_JIT= (empty) for
# the JVM's own budgets.
#
# GPUSCHED_AVRO: Avro's generated encoders and decoders instead of its reflective writer and "fast" reader (the
# parent pom's avro.jvm.coders, which the tests run with too): 4-5% off the 100k-job fifo replay at K = 1, over files
# and over Kafka. The bytes are the same either way; set GPUSCHED_AVRO= (empty) for Avro's defaults.
GPUSCHED_AVRO="${GPUSCHED_AVRO-$(sed -n 's:.*<avro.jvm.coders>\(.*\)</avro.jvm.coders>.*:\1:p' "$(dirname "${BASH_SOURCE[0]}")/../pom.xml")}"
GPUSCHED_GC="${GPUSCHED_GC:--XX:+UseParallelGC}"
GPUSCHED_JIT="${GPUSCHED_JIT--XX:FreqInlineSize=60 -XX:InlineSmallCode=800}"
