package io.orderflow.kafka;

import org.springframework.context.SmartLifecycle;

/**
 * The Spring lifecycle of a component that reads a topic with a {@link TopicReader}: a new reader per start, since a
 * stopped reader cannot be started again (a paused test context stops and starts its beans). It starts in phase 0,
 * before the web server opens its port and before listener containers start, so nothing written after the port
 * opens is missed.
 */
public abstract class TopicReaderLifecycle<K, V> implements SmartLifecycle {

    private volatile TopicReader<K, V> reader;
    private volatile boolean running;

    /** A new, unstarted reader; called on every start. */
    protected abstract TopicReader<K, V> newReader();

    /** The reader of the current start. */
    protected TopicReader<K, V> reader() {
        return reader;
    }

    /** After the reader started: a subclass opens here what it writes with. */
    protected void started() {
    }

    /** Before the reader closes: a subclass closes here what {@link #started()} opened. */
    protected void stopping() {
    }

    @Override
    public void start() {
        reader = newReader();
        reader.start();
        running = true;
        started();
    }

    @Override
    public void stop() {
        stopping();
        reader.close();
        running = false;
    }

    /**
     * Stops without holding up the phase's other beans: the context's readers close their consumers at the same time,
     * and {@code callback} runs once this one's is closed (or {@link TopicReader#close()} would stop waiting).
     */
    @Override
    public void stop(Runnable callback) {
        stopping();
        running = false;
        reader.closeAsync().whenComplete((closed, failure) -> callback.run());
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return 0;
    }
}
