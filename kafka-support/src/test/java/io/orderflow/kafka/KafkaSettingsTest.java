package io.orderflow.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which client properties every client of the services starts from, and where they come from. */
class KafkaSettingsTest {

    @Test
    void mapsKafkaVariablesOfClientPropertiesAndNothingElse() {
        Map<String, String> env = Map.of(
                "KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                "KAFKA_SASL_MECHANISM", "SCRAM-SHA-512",
                "KAFKA_SASL_JAAS_CONFIG", "org.apache.kafka.common.security.scram.ScramLoginModule required;",
                "KAFKA_SSL_TRUSTSTORE_LOCATION", "/etc/kafka/truststore.p12",
                "KAFKA_BOOTSTRAP_SERVERS", "elsewhere:9092",
                "KAFKA_PORT", "9092",
                "KAFKA_NOT_A_PROPERTY", "x",
                "SECURITY_PROTOCOL", "PLAINTEXT");

        Map<String, Object> props = new KafkaSettings("broker-1:9093").clientProperties(env);

        assertThat(props).containsExactlyInAnyOrderEntriesOf(Map.of(
                "bootstrap.servers", "broker-1:9093",
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required;",
                "ssl.truststore.location", "/etc/kafka/truststore.p12"));
    }

    @Test
    void theFileComesFirstThenTheVariablesThenTheNamedProperties() throws IOException {
        Path file = Files.createTempFile("client", ".properties");
        Files.writeString(file, """
                security.protocol=SSL
                ssl.truststore.location=/from/file.p12
                sasl.mechanism=PLAIN
                bootstrap.servers=ignored:1
                """);
        KafkaSettings settings = new KafkaSettings("broker-1:9093", file.toString(),
                Map.of("sasl.mechanism", "OAUTHBEARER"), (short) -1, 0);

        Map<String, Object> props = settings.clientProperties(Map.of(
                "KAFKA_SECURITY_PROTOCOL", "SASL_SSL", "KAFKA_SASL_MECHANISM", "SCRAM-SHA-256"));

        assertThat(props).containsExactlyInAnyOrderEntriesOf(Map.of(
                "bootstrap.servers", "broker-1:9093",
                "security.protocol", "SASL_SSL",
                "ssl.truststore.location", "/from/file.p12",
                "sasl.mechanism", "OAUTHBEARER"));
    }

    @Test
    void aPropertiesFileThatCannotBeReadIsNamed() {
        KafkaSettings settings = new KafkaSettings("broker-1:9093", "/no/such/client.properties", null, (short) -1, 0);

        assertThatThrownBy(() -> settings.clientProperties(Map.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("/no/such/client.properties")
                .hasMessageContaining("KAFKA_PROPERTIES_FILE");
    }

    @Test
    void replicationIsTheBrokersDefaultUnlessSet() {
        KafkaSettings unset = KafkaSettings.fromEnvironment(Map.of());
        KafkaSettings set = KafkaSettings.fromEnvironment(Map.of("TOPIC_REPLICATION", "3", "TOPIC_MIN_ISR", "2"));

        assertThat(unset.topicReplication()).isEqualTo((short) -1);
        assertThat(unset.topicConfig()).isEmpty();
        assertThat(set.topicReplication()).isEqualTo((short) 3);
        assertThat(set.topicConfig()).containsExactly(Map.entry("min.insync.replicas", "2"));
    }

    @Test
    void streamsInternalTopicsGetTheSameReplication() {
        KafkaSettings settings = KafkaSettings.fromEnvironment(Map.of("TOPIC_REPLICATION", "3", "TOPIC_MIN_ISR", "2"));

        Map<String, Object> props = StreamsApp.clusterProperties(settings);

        assertThat(props).containsEntry("replication.factor", 3)
                .containsEntry("topic.min.insync.replicas", "2")
                .containsEntry("bootstrap.servers", "localhost:9092");
    }

    @Test
    void anInstanceKeepsItsIdInItsStateDirectoryAndKeepsItWhenTheDirectoryMoves(@TempDir Path data) throws IOException {
        KafkaSettings derived = new KafkaSettings("localhost:9092");
        Path streams = data.resolve("order-processor/streams");

        String id = derived.instanceId(streams.toString());

        assertThat(Files.readString(streams.resolve(KafkaSettings.INSTANCE_ID_FILE))).isEqualTo(id);
        assertThat(derived.instanceId(streams.toString())).as("the next start").isEqualTo(id);

        Path moved = data.resolve("restored-elsewhere/streams");
        Files.createDirectories(moved);
        Files.copy(streams.resolve(KafkaSettings.INSTANCE_ID_FILE), moved.resolve(KafkaSettings.INSTANCE_ID_FILE));
        assertThat(derived.instanceId(moved.toString())).as("the same data under another path").isEqualTo(id);
        assertThat(derived.instanceId(data.resolve("another-instance").toString()))
                .as("another state directory is another instance").isNotEqualTo(id);
    }

    @Test
    void anInstanceIdGivenIsUsedAsItIsAndNothingIsKept(@TempDir Path data) {
        KafkaSettings named = new KafkaSettings("localhost:9092").withStreamsMembership("order-processor-1", 1,
                Duration.ofSeconds(10));

        assertThat(named.instanceId(data.toString())).isEqualTo("order-processor-1");
        assertThat(data.resolve(KafkaSettings.INSTANCE_ID_FILE)).doesNotExist();
    }
}
