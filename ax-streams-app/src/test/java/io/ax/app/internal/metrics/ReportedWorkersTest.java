package io.ax.app.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.schema.ReportStatus;
import org.junit.jupiter.api.Test;

class ReportedWorkersTest {
    private final ReportedWorkers workers = new ReportedWorkers(60_000);

    @Test
    void shouldListAWorkerFromItsReportsWithTheExecutionsStartedAndNotFinished() {
        workers.saw("node-9", "e-1", "t-1", ReportStatus.STARTED, 1_000);
        workers.saw("node-9", "e-2", "t-2", ReportStatus.HEARTBEAT, 2_000);
        workers.saw("node-9", "e-1", "t-1", ReportStatus.SUCCEEDED, 3_000);
        workers.saw(null, "e-3", "t-3", ReportStatus.STARTED, 3_000);

        assertThat(workers.snapshot(3_000)).singleElement().satisfies(worker -> {
            assertThat(worker.workerId()).isEqualTo("node-9");
            assertThat(worker.lastReportMs()).isEqualTo(3_000);
            assertThat(worker.reports()).isEqualTo(3);
            assertThat(worker.inFlight()).containsExactly(new ReportedWorkers.Execution("e-2", "t-2"));
        });
    }

    @Test
    void shouldForgetAWorkerSilentForTheRetention() {
        workers.saw("node-9", "e-1", "t-1", ReportStatus.STARTED, 1_000);

        assertThat(workers.snapshot(60_999)).hasSize(1);
        assertThat(workers.snapshot(61_000)).isEmpty();
    }

    @Test
    void shouldStayBoundedInWorkersAndExecutions() {
        for (int i = 0; i < ReportedWorkers.MAX_WORKERS + 50; i++) {
            workers.saw("w-" + i, "e", "t", ReportStatus.STARTED, i);
        }
        for (int i = 0; i < ReportedWorkers.MAX_EXECUTIONS + 50; i++) {
            workers.saw("busy", "e-" + i, "t", ReportStatus.STARTED, 10_000);
        }

        assertThat(workers.snapshot(10_000)).hasSize(ReportedWorkers.MAX_WORKERS)
                .noneMatch(w -> w.workerId().equals("w-0"))
                .anySatisfy(w -> assertThat(w.inFlight()).hasSize(ReportedWorkers.MAX_EXECUTIONS));
    }
}
