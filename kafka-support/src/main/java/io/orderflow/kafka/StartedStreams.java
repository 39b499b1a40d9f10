package io.orderflow.kafka;

import java.time.Duration;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;

/**
 * A Kafka Streams app {@link StreamsApp#start started} by a service, with the watch on its start
 * ({@link StreamsProgress}); the service holds it until it {@link #close closes} it.
 */
public record StartedStreams(KafkaStreams streams, StreamsProgress progress) {

    /** Closes the app leaving its group, so the next start does not wait for the member's session to time out. */
    public void close(Duration timeout) {
        progress.close();
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(timeout));
    }
}
