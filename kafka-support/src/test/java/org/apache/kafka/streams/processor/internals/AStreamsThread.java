package org.apache.kafka.streams.processor.internals;

/** A thread of Kafka Streams' own package, as its stream threads and state updater are, for GuardedStoresTest. */
public final class AStreamsThread extends Thread {

    public AStreamsThread(Runnable task) {
        super(task, "a-streams-thread");
    }
}
