package io.orderflow.schemas.batches;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.orderflow.schemas.commands.BatchAction;
import io.orderflow.schemas.commands.Caller;
import java.util.List;

/**
 * A record of the compacted {@code batches} topic. A batch is several keys, all written to the partition of its id
 * (the partition the default partitioner gives the key {@code <batchId>}), so the one instance that runs it reads them all, in order:
 * <ul>
 *   <li>{@code <batchId>}: its {@link Definition}, written once by the gateway that accepted it;</li>
 *   <li>{@code <batchId>/progress}: its {@link Progress}, written by the instance that runs it;</li>
 *   <li>{@code <batchId>/ids/<n>}: the {@link Chunk}s of order ids it matched, in the order it acts on them;</li>
 *   <li>{@code <batchId>/stop}: a {@link Stop} asked for by an operator.</li>
 * </ul>
 * A batch that ended more than its retention ago is removed: a tombstone for each of its keys.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
        @JsonSubTypes.Type(value = BatchRecord.Definition.class, name = "definition"),
        @JsonSubTypes.Type(value = BatchRecord.Progress.class, name = "progress"),
        @JsonSubTypes.Type(value = BatchRecord.Chunk.class, name = "chunk"),
        @JsonSubTypes.Type(value = BatchRecord.Stop.class, name = "stop"),
})
public sealed interface BatchRecord {

    String RUNNING = "running";
    String STOPPED = "stopped";
    String COMPLETED = "completed";
    /** The phase of a batch walking the order list to find (and keep) the orders it matches. */
    String MATCHING = "matching";
    /** The phase of a batch acting on the orders it matched, one at a time. */
    String ACTING = "acting";

    String batchId();

    /** The key a record is written under. */
    String key();

    /** The batch a key of the topic belongs to: the part before the first {@code /}. */
    static String batchOf(String key) {
        int slash = key.indexOf('/');
        return slash < 0 ? key : key.substring(0, slash);
    }

    static String progressKey(String batchId) {
        return batchId + "/progress";
    }

    static String stopKey(String batchId) {
        return batchId + "/stop";
    }

    static String chunkKey(String batchId, int index) {
        return batchId + "/ids/" + index;
    }

    /**
     * What a batch is: the orders it selects (a {@code filter} of the order list, or the {@code orderIds} given) and
     * what it does to each. Written once, never changed.
     *
     * @param filter    the order list's filters; {@code null} when {@code orderIds} selects
     * @param orderIds  the orders picked one by one; {@code null} when {@code filter} selects
     * @param rate      orders per second the batch acts on at most
     * @param caller    who started it, as the gateway authenticated them: every command of the batch is theirs
     * @param createdBy the same in words ({@code olga@example.com}, {@code token:ci}, {@code shared password}, ...)
     * @param createdAt epoch milliseconds
     */
    record Definition(String batchId, BatchFilter filter, List<String> orderIds, BatchAction action, int rate,
                      Caller caller, String createdBy, long createdAt) implements BatchRecord {

        public Definition {
            orderIds = orderIds == null ? null : List.copyOf(orderIds);
        }

        @Override
        public String key() {
            return batchId;
        }
    }

    /** An order the batch could not act on, and why (the order's agent's refusal). */
    record Failure(String orderId, String reason, long at) {
    }

    /**
     * How far a batch has got. What it has done is counted up to its checkpoint ({@code chunk}, {@code position}):
     * after a restart the batch goes on from there, and an order acted on after it is sent again, which its agent
     * answers as done without acting twice.
     *
     * @param state     {@link #RUNNING}, {@link #STOPPED} or {@link #COMPLETED}
     * @param phase     {@link #MATCHING} or {@link #ACTING}
     * @param matched   orders matched so far (all of them once acting)
     * @param done      orders the action applied to
     * @param failed    orders it could not apply to
     * @param failures  the first of them with their reasons, at most {@link #FAILURES_KEPT}
     * @param cursor    while matching: the order list's cursor of the next page ({@code null}: the first)
     * @param chunks    chunks of matched order ids written
     * @param chunk     while acting: the chunk of the next order
     * @param position  while acting: the next order's index in that chunk
     * @param capped    matching stopped at the most orders a batch acts on
     * @param updatedAt epoch milliseconds
     * @param endedAt   when it was stopped or completed
     * @param stoppedBy who stopped it, as {@link Definition#createdBy()}
     */
    record Progress(String batchId, String state, String phase, int matched, int done, int failed,
                    List<Failure> failures, String cursor, int chunks, int chunk, int position, boolean capped,
                    long updatedAt, Long endedAt, String stoppedBy) implements BatchRecord {

        /** Failures kept with their reasons; past it they are only counted. */
        public static final int FAILURES_KEPT = 100;

        public Progress {
            failures = failures == null ? List.of() : List.copyOf(failures);
        }

        /** A batch that has not started yet: matching from the first page. */
        public static Progress start(String batchId, long at) {
            return new Progress(batchId, RUNNING, MATCHING, 0, 0, 0, List.of(), null, 0, 0, 0, false, at, null, null);
        }

        @Override
        public String key() {
            return progressKey(batchId);
        }

        public boolean ended() {
            return !RUNNING.equals(state);
        }
    }

    /** The {@code index}th chunk of the order ids a batch matched, in the order it acts on them. */
    record Chunk(String batchId, int index, List<String> orderIds) implements BatchRecord {

        /** The most order ids in one chunk: one page of the order list. */
        public static final int MAX_IDS = 200;

        public Chunk {
            orderIds = orderIds == null ? List.of() : List.copyOf(orderIds);
        }

        @Override
        public String key() {
            return chunkKey(batchId, index);
        }
    }

    /** An operator asked to stop the batch: it acts on no order after the one under way. */
    record Stop(String batchId, String by, long at) implements BatchRecord {

        @Override
        public String key() {
            return stopKey(batchId);
        }
    }
}
