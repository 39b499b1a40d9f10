package io.orderflow.runner.run;

import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.util.ArrayList;
import java.util.List;

/**
 * What handling one task or timer produced, in send order: the instance to store ({@code null}: leave the store as
 * it is), the run-reports records (at most one: several reports go as one {@link RunReport.Batch}), events,
 * follow-up tasks and timers to schedule.
 */
public record Effects(RunInstance instance, List<RunReport> reports, List<OrderEvent> events, List<NodeTask> tasks,
                      List<RunInstance.Timer> timers) {

    public static Effects none() {
        return new Effects(null, List.of(), List.of(), List.of(), List.of());
    }

    /** Collects effects while the engine works. */
    static final class Builder {
        final RunEngine.Guard guard;
        final List<RunReport> reports = new ArrayList<>();
        final List<OrderEvent> events = new ArrayList<>();
        final List<NodeTask> tasks = new ArrayList<>();
        final List<RunInstance.Timer> timers = new ArrayList<>();

        Builder(RunEngine.Guard guard) {
            this.guard = guard;
        }

        /** The last progress report collected so far, or {@code null}. */
        RunReport.Progress lastProgress() {
            for (int i = reports.size() - 1; i >= 0; i--) {
                if (reports.get(i) instanceof RunReport.Progress progress) {
                    return progress;
                }
            }
            return null;
        }

        /** What was collected; the reports travel as one record ({@link RunReport.Batch#of}). */
        Effects build(RunInstance instance) {
            return new Effects(instance, RunReport.Batch.of(reports), List.copyOf(events), List.copyOf(tasks),
                    List.copyOf(timers));
        }
    }
}
