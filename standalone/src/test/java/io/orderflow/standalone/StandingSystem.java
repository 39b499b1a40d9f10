package io.orderflow.standalone;

import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The one standalone system a test JVM keeps running between test classes: the end-to-end classes' ({@link
 * SharedStandalone}) or the dashboard browser classes' ({@link DashboardBrowserTest.OnSharedSystem}), whichever the
 * class that runs asks for. A JVM that goes from one kind of class to the other closes the system it has before
 * starting the other: an idle system still takes about 40% of a core with the test JVMs' C1 compiler (its stream
 * threads, consumers and broker answering their polls; docs/performance.md, "What an idle system costs"), which the
 * test JVMs running beside it on two cores would otherwise lose for the rest of the run. Test classes run one after
 * another in a JVM (junit-platform.properties), so no class sees its system closed under it; the last one is closed
 * when the test run ends.
 *
 * <p>The slot lives in the launcher session's store, not the root context's: with several forks Surefire hands each
 * JVM its classes one at a time and runs each as an execution request of its own, whose root context (and its store)
 * ends with the class, while the launcher session spans every class the JVM runs.
 */
final class StandingSystem implements AutoCloseable {

    private Object owner;
    private AutoCloseable running;

    /**
     * The system {@code owner} runs on: the one already standing if {@code owner} started it, otherwise the standing
     * one (if any) closed and {@code start}'s started in its place.
     */
    static <T extends AutoCloseable> T take(ExtensionContext context, Object owner, Class<T> type, Supplier<T> start) {
        StandingSystem slot = context.getStore(ExtensionContext.StoreScope.LAUNCHER_SESSION,
                ExtensionContext.Namespace.GLOBAL)
                .computeIfAbsent(StandingSystem.class, ignored -> new StandingSystem(), StandingSystem.class);
        return type.cast(slot.get(owner, start));
    }

    private synchronized AutoCloseable get(Object owner, Supplier<? extends AutoCloseable> start) {
        if (!owner.equals(this.owner)) {
            close();
            running = start.get();
            this.owner = owner;
        }
        return running;
    }

    @Override
    public synchronized void close() {
        AutoCloseable closing = running;
        running = null;
        owner = null;
        if (closing != null) {
            try {
                closing.close();
            } catch (Exception e) {
                throw new IllegalStateException("Closing the standing system failed", e);
            }
        }
    }
}
