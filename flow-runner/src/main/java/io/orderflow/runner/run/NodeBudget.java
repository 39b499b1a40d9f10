package io.orderflow.runner.run;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Runs the decider's work for one task or timer on a worker thread, and gives each node that work executes at most
 * {@code budget} of time. The stream thread waits for the work; when one node has run longer than the budget, it
 * stops waiting and throws {@link Overrun} naming the node, and the caller handles the task again on a fresh copy of
 * the instance with that node failing at once ({@link RunDecider.Guard#overran}).
 *
 * <p>Java cannot stop a thread that will not stop: an overrunning worker is interrupted and abandoned, and it works on
 * its own copy of the instance, which nothing reads again. Workers are created on demand up to {@code maxWorkers}
 * (a stream thread has one piece of work out at a time, so the rest are abandoned ones); with none left, the work is
 * refused as an overrun without a node, and the caller sets the order aside.
 */
public final class NodeBudget implements AutoCloseable {

    private final Duration budget;
    private final ThreadPoolExecutor workers;

    /** Thrown on the waiting thread when a node overran: {@code nodeId} is null when no worker was free. */
    public static final class Overrun extends RuntimeException {

        private final String step;

        Overrun(String step, String message) {
            super(message, null, false, false);
            this.step = step;
        }

        /** The node id (or {@link RunDecider.Guard#compensating} of one) that overran, or null. */
        public String step() {
            return step;
        }
    }

    public NodeBudget(Duration budget, int maxWorkers) {
        this.budget = budget;
        AtomicInteger count = new AtomicInteger();
        ThreadFactory threads = work -> {
            Thread thread = new Thread(work, "node-worker-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        this.workers = new ThreadPoolExecutor(0, maxWorkers, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), threads);
    }

    public Duration budget() {
        return budget;
    }

    /** The message a node that overran fails with. */
    public String overrunMessage() {
        return "Stopped after " + describe(budget) + " (the node time budget)";
    }

    /**
     * Runs {@code work} on a worker and returns what it returns; exceptions it throws are thrown here as they are.
     *
     * @param overran the steps that overran in earlier attempts at the same work: they fail without running
     * @throws Overrun when a node ran longer than the budget, or no worker was free
     */
    public <T> T run(Set<String> overran, Function<RunDecider.Guard, T> work) {
        Watch watch = new Watch(overran, overrunMessage());
        Future<T> future;
        try {
            future = workers.submit(() -> work.apply(watch));
        } catch (RejectedExecutionException e) {
            throw new Overrun(null, "No node worker is free: " + workers.getMaximumPoolSize()
                    + " are held by nodes that overran their budget");
        }
        long budgetNanos = budget.toNanos();
        while (true) {
            long since = watch.since;
            long left = since + budgetNanos - System.nanoTime();
            try {
                if (left > 0) {
                    return future.get(left, TimeUnit.NANOSECONDS);
                }
                if (watch.since == since) {
                    future.cancel(true);
                    throw new Overrun(watch.step, "Node " + watch.step + " overran its budget of "
                            + describe(budget));
                }
            } catch (TimeoutException e) {
                // the node that was running may have finished in the meantime: look again
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException runtime) {
                    throw runtime;
                }
                if (e.getCause() instanceof Error error) {
                    throw error;
                }
                throw new IllegalStateException(e.getCause());
            } catch (InterruptedException e) {
                future.cancel(true);
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while a node was running", e);
            }
        }
    }

    @Override
    public void close() {
        workers.shutdownNow();
    }

    private static String describe(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
    }

    /** What the worker tells the waiting thread: the step it is in and since when. */
    private static final class Watch implements RunDecider.Guard {

        private final Set<String> overran;
        private final String overrunMessage;
        private volatile String step = "(before the first node)";
        private volatile long since = System.nanoTime();

        Watch(Set<String> overran, String overrunMessage) {
            this.overran = overran;
            this.overrunMessage = overrunMessage;
        }

        @Override
        public void entering(String step) {
            this.step = step;
            this.since = System.nanoTime();
        }

        @Override
        public boolean overran(String step) {
            return overran.contains(step);
        }

        @Override
        public String overrunMessage() {
            return overrunMessage;
        }
    }
}
