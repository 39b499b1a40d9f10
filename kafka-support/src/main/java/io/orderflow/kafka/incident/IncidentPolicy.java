package io.orderflow.kafka.incident;

import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What a Kafka Streams processor does with a record whose handling throws: it tries again a bounded number of times,
 * then gives up, and the record's one order is set aside as an incident while the partition moves on (never a stopped
 * partition, never a silent drop). The order-processor's agent and the flow-runner's run processor both handle their
 * records this way; each says which failures count, and what setting an order aside writes.
 *
 * <p>The {@code judge} gives each failure its {@link Verdict}: tried again as one of the {@code attempts}; tried again
 * without counting, because the next try is known to differ (at most {@code uncounted} times in one handling); or
 * given up at once, because trying again cannot help. A counted failure that uses up the attempts, or an uncounted one
 * past its cap, is given up too.
 *
 * @param attempts  the tries at a record whose failures count, the first one included
 * @param uncounted the most tries in one handling that do not count
 * @param judge     the verdict on each failure; one that keeps what it saw of a handling's failures makes a policy
 *                  per handling
 */
public record IncidentPolicy(int attempts, int uncounted, Judge judge) {

    public IncidentPolicy {
        if (attempts < 1 || uncounted < 0) {
            throw new IllegalArgumentException("Needs at least one attempt and no negative number of uncounted tries, "
                    + "not " + attempts + " and " + uncounted);
        }
    }

    /** What comes of one failure. */
    public enum Verdict {
        /** Tried again, counting as one of the attempts. */
        RETRY,
        /** Tried again without counting. */
        RETRY_UNCOUNTED,
        /** No more tries: the order is set aside. */
        GIVE_UP
    }

    /** The verdict on a failure, before the attempts and the cap are applied. */
    @FunctionalInterface
    public interface Judge {
        Verdict of(RuntimeException failure);
    }

    /**
     * One failed try: what it threw, the counted attempts that failed so far (this one included when it counts), and
     * what comes of it, the attempts and the cap applied.
     */
    public record Failure(RuntimeException cause, int attempt, Verdict verdict) {
    }

    /** Told of every failed try, before the next one or the set-aside: where a service logs its retries. */
    @FunctionalInterface
    public interface Observer {
        void failed(Failure failure);
    }

    /**
     * Sets an order aside as an incident because of {@code failure}: the service's own incident record, the state it
     * keeps for a retry, and what it tells its log and its peers.
     */
    @FunctionalInterface
    public interface SetAside {
        void setAside(RuntimeException failure);
    }

    /**
     * Runs {@code work} until it returns, and returns what it returns.
     *
     * @throws RuntimeException the failure the policy gave up on, as {@code work} threw it
     */
    public <T> T attempt(Supplier<T> work, Observer observer) {
        int counted = 0;
        int notCounted = 0;
        while (true) {
            try {
                return work.get();
            } catch (RuntimeException failure) {
                Verdict verdict = switch (judge.of(failure)) {
                    case RETRY -> ++counted >= attempts ? Verdict.GIVE_UP : Verdict.RETRY;
                    case RETRY_UNCOUNTED -> ++notCounted > uncounted ? Verdict.GIVE_UP : Verdict.RETRY_UNCOUNTED;
                    case GIVE_UP -> Verdict.GIVE_UP;
                };
                observer.failed(new Failure(failure, counted, verdict));
                if (verdict == Verdict.GIVE_UP) {
                    throw failure;
                }
            }
        }
    }

    /**
     * Handles one record: {@link #attempt} at {@code work}, then {@code settle} with its result. When the policy gives
     * up, or settling throws (it is not tried again: it may have written part of what it writes), the order is set
     * aside.
     */
    public <T> void handle(Supplier<T> work, Observer observer, Consumer<? super T> settle, SetAside setAside) {
        try {
            settle.accept(attempt(work, observer));
        } catch (RuntimeException failure) {
            setAside.setAside(failure);
        }
    }
}
