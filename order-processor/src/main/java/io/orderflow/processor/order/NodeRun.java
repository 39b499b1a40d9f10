package io.orderflow.processor.order;

/** One finished run of a node: written once, on the first end at or after the run's start. */
public record NodeRun(long startedAt, long endedAt, long durationMs) {

    public static NodeRun of(long startedAt, long endedAt) {
        return new NodeRun(startedAt, endedAt, endedAt - startedAt);
    }
}
