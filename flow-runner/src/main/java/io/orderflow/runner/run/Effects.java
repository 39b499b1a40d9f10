package io.orderflow.runner.run;

import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.util.ArrayList;
import java.util.List;

/**
 * What handling one task or timer produced, in send order: the instance to store ({@code null}: leave the store as
 * it is), reports, events, follow-up tasks and timers to schedule.
 */
public record Effects(RunInstance instance, List<RunReport> reports, List<OrderEvent> events, List<NodeTask> tasks,
                      List<RunInstance.Timer> timers) {

    public static Effects none() {
        return new Effects(null, List.of(), List.of(), List.of(), List.of());
    }

    /** Collects effects while the engine works. */
    static final class Builder {
        final List<RunReport> reports = new ArrayList<>();
        final List<OrderEvent> events = new ArrayList<>();
        final List<NodeTask> tasks = new ArrayList<>();
        final List<RunInstance.Timer> timers = new ArrayList<>();

        /** The last progress report collected so far, or {@code null}. */
        RunReport.Progress lastProgress() {
            for (int i = reports.size() - 1; i >= 0; i--) {
                if (reports.get(i) instanceof RunReport.Progress progress) {
                    return progress;
                }
            }
            return null;
        }

        Effects build(RunInstance instance) {
            return new Effects(instance, batched(reports), List.copyOf(events), List.copyOf(tasks),
                    List.copyOf(timers));
        }

        /**
         * Node details that follow each other go out as one {@link RunReport.NodeDetails} record: the agent then reads
         * and writes the order once for the lot. Their order, and their place among the other reports, is kept.
         */
        static List<RunReport> batched(List<RunReport> reports) {
            List<RunReport> sent = new ArrayList<>(reports.size());
            List<RunReport.NodeDetail> run = new ArrayList<>();
            for (RunReport report : reports) {
                if (report instanceof RunReport.NodeDetail detail) {
                    run.add(detail);
                    continue;
                }
                flush(run, sent);
                sent.add(report);
            }
            flush(run, sent);
            return List.copyOf(sent);
        }

        private static void flush(List<RunReport.NodeDetail> run, List<RunReport> sent) {
            if (run.size() == 1) {
                sent.add(run.getFirst());
            } else if (run.size() > 1) {
                RunReport.NodeDetail first = run.getFirst();
                sent.add(new RunReport.NodeDetails(first.orderId(), first.instanceId(), run));
            }
            run.clear();
        }
    }
}
