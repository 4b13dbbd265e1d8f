package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.state.JobRecord;
import org.junit.jupiter.api.Test;

class ActiveJobsTest {
    private static JobRecord job(String id, double submit) {
        JobSubmitted spec = JobSubmitted.newBuilder().setId(id).setSubmit(submit).setDue(submit + 100).setWeight(1).setTimes(List.of()).build();
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
}
