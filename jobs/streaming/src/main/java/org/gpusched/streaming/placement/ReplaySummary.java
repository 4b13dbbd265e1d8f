package org.gpusched.streaming.placement;

/**
 * Running summary of a replay's events (fed in trace-time order): counts, time-weighted mean and peak EOPC, and the
 * energy integrated over trace time (EOPC is constant between events) from the first event to the last; likewise the
 * time-weighted mean allocated GPU fraction and fragmented GPUs.
 */
public final class ReplaySummary {
    private long placed;
    private long failed;
    private long released;
    private long startTime = -1;
    private long lastTime = -1;
    private double lastCpuWatts;
    private double lastGpuWatts;
    private double cpuJoules;
    private double gpuJoules;
    private double lastAllocated;
    private double lastFragmented;
    private double allocatedSeconds;
    private double fragmentedSeconds;
    private double peakFragmented;
    private double peakWatts;
    private double peakAllocatedGpuFraction;
    private int peakRunning;
    private int running;

    public void accept(ReplayEvent e) {
        if (startTime < 0) startTime = e.time;
        else {
            if (e.time < lastTime)
                throw new IllegalStateException("replay events out of time order: " + e.time + " after " + lastTime);
            cpuJoules += lastCpuWatts * (e.time - lastTime);
            gpuJoules += lastGpuWatts * (e.time - lastTime);
            allocatedSeconds += lastAllocated * (e.time - lastTime);
            fragmentedSeconds += lastFragmented * (e.time - lastTime);
        }
        lastAllocated = e.allocatedGpuFraction;
        lastFragmented = e.fragmentedGpus;
        lastTime = e.time;
        lastCpuWatts = e.eopcCpuWatts;
        lastGpuWatts = e.eopcGpuWatts;
        switch (e.action) {
            case "PLACE" -> placed++;
            case "FAIL" -> failed++;
            case "RELEASE" -> released++;
            default -> throw new IllegalStateException("unknown action " + e.action);
        }
        peakWatts = Math.max(peakWatts, e.eopcWatts());
        peakAllocatedGpuFraction = Math.max(peakAllocatedGpuFraction, e.allocatedGpuFraction);
        peakFragmented = Math.max(peakFragmented, e.fragmentedGpus);
        peakRunning = Math.max(peakRunning, e.running);
        running = e.running;
    }

    public long placed() {
        return placed;
    }

    public long failed() {
        return failed;
    }

    public long released() {
        return released;
    }

    public int running() {
        return running;
    }

    public int peakRunning() {
        return peakRunning;
    }

    public long startTime() {
        return startTime;
    }

    public long endTime() {
        return lastTime;
    }

    public long durationSeconds() {
        return startTime < 0 ? 0 : lastTime - startTime;
    }

    public double energyKWh() {
        return (cpuJoules + gpuJoules) / 3.6e6;
    }

    public double cpuEnergyKWh() {
        return cpuJoules / 3.6e6;
    }

    public double gpuEnergyKWh() {
        return gpuJoules / 3.6e6;
    }
    /** Time-weighted mean EOPC over the replay, watts (the last event's value when it spans no time). */
    public double meanWatts() {
        return durationSeconds() == 0 ? lastCpuWatts + lastGpuWatts : (cpuJoules + gpuJoules) / durationSeconds();
    }

    public double peakWatts() {
        return peakWatts;
    }

    public double peakAllocatedGpuFraction() {
        return peakAllocatedGpuFraction;
    }
    /** Time-weighted mean allocated GPU fraction (the last event's value when the replay spans no time). */
    public double meanAllocatedGpuFraction() {
        return durationSeconds() == 0 ? lastAllocated : allocatedSeconds / durationSeconds();
    }
    /** Time-weighted mean fragmented GPUs (FGD's measure against the target workload). */
    public double meanFragmentedGpus() {
        return durationSeconds() == 0 ? lastFragmented : fragmentedSeconds / durationSeconds();
    }

    public double peakFragmentedGpus() {
        return peakFragmented;
    }
}
