package io.orderflow.intake;

import io.orderflow.kafka.KafkaSettings;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The mock customers are seeded from a common-pool thread. In the packaged jar its context class loader cannot see
 * Kafka; here a thread with such a loader stands in for it.
 */
class CustomerSeedProducerTest {

    /** As in the service, Kafka's client classes are loaded and initialised before the seed thread runs. */
    @BeforeAll
    static void kafkaClassesLoaded() {
        assertThat(ProducerConfig.configNames()).isNotEmpty();
        assertThat(new KafkaSettings("127.0.0.1:1")).isNotNull();
    }

    /** Runs {@code task} on a new thread whose context class loader holds nothing but the JDK. */
    private static <T> T onThreadWithoutKafka(java.util.concurrent.Callable<T> task) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = Thread.ofPlatform().unstarted(() -> {
            try {
                result.complete(task.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        thread.setContextClassLoader(new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader()));
        thread.start();
        try {
            return result.get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw (Exception) e.getCause();
        }
    }

    @Test
    void aPlainProducerCannotBeMadeOnSuchAThread() {
        assertThatThrownBy(() -> onThreadWithoutKafka(() -> new KafkaProducer<>(
                Map.of("bootstrap.servers", "127.0.0.1:1"), new StringSerializer(), new StringSerializer())))
                .isInstanceOf(KafkaException.class)
                .hasRootCauseInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void theSeedProducerIsMadeOnSuchAThreadAndLeavesItsLoaderAsItWas() throws Exception {
        ClassLoader[] after = new ClassLoader[2];

        boolean made = onThreadWithoutKafka(() -> {
            after[0] = Thread.currentThread().getContextClassLoader();
            try (var producer = CustomerDirectory.seedProducer(new KafkaSettings("127.0.0.1:1"))) {
                after[1] = Thread.currentThread().getContextClassLoader();
                return producer != null;
            }
        });

        assertThat(made).isTrue();
        assertThat(after[1]).isSameAs(after[0]);
    }
}
