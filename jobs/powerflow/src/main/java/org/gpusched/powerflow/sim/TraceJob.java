package org.gpusched.powerflow.sim;

/**
 * One job of a PowerFlow trace: submission time (s), workload (a conf/powerflow.yaml name), global batch size, the GPU
 * count its developer asked for, and the iterations it must run.
 */
public record TraceJob(long id, double submit, String workload, double batch, int gpus, double iterations) {}
