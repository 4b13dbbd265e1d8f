package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.state.JobRecord;
import org.junit.jupiter.api.Test;

class ActiveJobsTest {
    private static JobRecord job(String id, double submit) {
        JobSubmitted spec = JobSubmitted.newBuilder()
                .setId(id)
                .setSubmit(submit)
                .setDue(submit + 100)
                .setWeight(1)
                .setTimes(List.of())
                .build();
        return JobRecord.newBuilder().setSpec(spec).setDone(0).setModelDone(0).build();
    }

    private static List<String> ids(ActiveJobs jobs) {
        return jobs.inOrder().stream().map(e -> e.record.getSpec().getId()).toList();
    }

    @Test
    void keepsSubmissionOrderWhateverTheOrderOfAdditionAndRemoval() {
        ActiveJobs jobs = new ActiveJobs();
        jobs.add(job("b", 2));
        jobs.add(job("d", 4));
        jobs.add(job("a", 2)); // same submit: the id decides
        jobs.add(job("c", 3));
        jobs.add(job("e", 9));
        jobs.add(job("z", 0));
        assertEquals(List.of("z", "a", "b", "c", "d", "e"), ids(jobs));
        jobs.remove("c");
        jobs.remove("z");
        jobs.remove("e");
        jobs.remove("missing");
        assertEquals(List.of("a", "b", "d"), ids(jobs));
        assertEquals(3, jobs.size());
        assertNull(jobs.get("c"));
    }

    /**
     * The entries' order, read off the entries, is that of their specs' (submit, id), ties and signs of zero included.
     */
    @Test
    void entriesCompareAsTheirRecords() {
        Comparator<JobRecord> bySpec = Comparator.<JobRecord>comparingDouble(
                        j -> j.getSpec().getSubmit())
                .thenComparing(j -> j.getSpec().getId());
        Random random = new Random(7);
        String[] ids = {"a", "b", "ab", "B", "a1", "a10", "a2", ""};
        double[] submits = {0, -0.0, 1, 1.5, 1e9, -3};
        for (int i = 0; i < 2000; i++) {
            JobRecord x = job(ids[random.nextInt(ids.length)], submits[random.nextInt(submits.length)]);
            JobRecord y = job(ids[random.nextInt(ids.length)], submits[random.nextInt(submits.length)]);
            assertEquals(
                    Integer.signum(bySpec.compare(x, y)),
                    Integer.signum(ActiveJobs.ORDER.compare(new ActiveJobs.Entry(x), new ActiveJobs.Entry(y))),
                    x.getSpec().getId() + "@" + x.getSpec().getSubmit() + " vs "
                            + y.getSpec().getId() + "@" + y.getSpec().getSubmit());
        }
    }

    @Test
    void aReaddedIdReplacesItsEntryInOrder() {
        ActiveJobs jobs = new ActiveJobs();
        jobs.add(job("a", 1));
        jobs.add(job("b", 2));
        ActiveJobs.Entry again = jobs.add(job("a", 5));
        assertEquals(List.of("b", "a"), ids(jobs));
        assertSame(again, jobs.get("a"));
        jobs.replace(again, job("a", 5));
        jobs.remove("a");
        assertEquals(List.of("b"), ids(jobs));
    }

    /** The running index against a walk over every job, through random starts, moves, stops, removals and re-adds. */
    @Test
    void theRunningIndexAgreesWithAWalkOverEveryJob() {
        Random random = new Random(7);
        ActiveJobs jobs = new ActiveJobs();
        for (int step = 0; step < 5000; step++) {
            String id = "j" + random.nextInt(60);
            ActiveJobs.Entry e = jobs.get(id);
            switch (random.nextInt(5)) {
                case 0 -> jobs.add(job(id, random.nextInt(20)));
                case 1 -> jobs.remove(id);
                default -> {
                    if (e == null) continue;
                    JobRecord changed = JobRecord.newBuilder(e.record).build();
                    if (random.nextInt(3) == 0) {
                        changed.setNode(null);
                        changed.setEndMillis(-1L);
                    } else {
                        changed.setNode("n" + random.nextInt(5));
                        changed.setEndMillis(random.nextInt(4) == 0 ? -1L : random.nextInt(1000));
                    }
                    if (random.nextBoolean()) {
                        jobs.replace(e, changed);
                    } else { // changed in place, as a record already copied in this step is
                        e.record.setNode(changed.getNode());
                        e.record.setEndMillis(changed.getEndMillis());
                    }
                    jobs.reindex(e);
                }
            }
            long at = random.nextInt(1000);
            List<String> ending = new ArrayList<>();
            List<String> running = new ArrayList<>();
            long next = Long.MAX_VALUE;
            for (ActiveJobs.Entry x : jobs.inOrder()) {
                if (!x.running()) continue;
                running.add(x.record.getSpec().getId());
                long end = x.record.getEndMillis();
                if (end < 0) continue;
                next = Math.min(next, end);
                if (end <= at) ending.add(x.record.getSpec().getId());
            }
            assertEquals(running.size(), jobs.runningCount(), "running at step " + step);
            assertEquals(
                    running,
                    jobs.runningInOrder().stream()
                            .map(x -> x.record.getSpec().getId())
                            .toList(),
                    "running in order at step " + step);
            assertEquals(next, jobs.nextEndMillis(), "next end at step " + step);
            assertEquals(
                    ending,
                    jobs.endingBy(at).stream()
                            .map(x -> x.record.getSpec().getId())
                            .toList(),
                    "ending by " + at + " at step " + step);
        }
    }
}
