package io.orderflow.runner.run;

import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.util.ArrayList;
import java.util.List;

/**
 * What the decider decided about one task or timer, in send order: the facts to apply to the stored instance (none:
 * leave the store as it is), the run-reports records (at most one: several reports go as one {@link RunReport.Batch}),
 * events, follow-up tasks and timers to schedule.
 */
public record RunDecision(List<RunFact> facts, List<RunReport> reports, List<OrderEvent> events,
                          List<NodeTask> tasks, List<RunInstance.Timer> timers) {

    public RunDecision {
        facts = List.copyOf(facts);
        reports = List.copyOf(reports);
        events = List.copyOf(events);
        tasks = List.copyOf(tasks);
        timers = List.copyOf(timers);
    }

    public static RunDecision none() {
        return new RunDecision(List.of(), List.of(), List.of(), List.of(), List.of());
    }

    public boolean changesState() {
        return !facts.isEmpty();
    }

    /** The instance after this decision: {@code current} with the facts applied. */
    public RunInstance applied(RunInstance current) {
        return RunApplier.applyAll(current, facts);
    }

    /**
     * Collects a decision while the decider works. The decider steps through several nodes per task and each step
     * reads what the ones before made of the instance, so every fact is applied to the working copy ({@link #state})
     * as it is decided.
     */
    static final class Builder {
        final RunDecider.Guard guard;
        private RunInstance state;
        private final List<RunFact> facts = new ArrayList<>();
        final List<RunReport> reports = new ArrayList<>();
        final List<OrderEvent> events = new ArrayList<>();
        final List<NodeTask> tasks = new ArrayList<>();
        final List<RunInstance.Timer> timers = new ArrayList<>();

        Builder(RunInstance state, RunDecider.Guard guard) {
            this.state = state;
            this.guard = guard;
        }

        /** The instance as the facts so far made it. */
        RunInstance state() {
            return state;
        }

        /** Decides {@code fact}: it is recorded and applied to the working copy. */
        void fact(RunFact fact) {
            facts.add(fact);
            state = RunApplier.apply(state, fact);
        }

        int factCount() {
            return facts.size();
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
        RunDecision build() {
            return new RunDecision(facts, RunReport.Batch.of(reports), events, tasks, timers);
        }
    }
}
