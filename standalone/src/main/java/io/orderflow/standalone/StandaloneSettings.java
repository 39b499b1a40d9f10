package io.orderflow.standalone;

import io.orderflow.kafka.KafkaSettings;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * What the standalone launcher reads from the environment.
 *
 * @param port             gateway port ({@code PORT}, default 8080; 0 picks a free port)
 * @param dataDir          broker logs and Kafka Streams state ({@code DATA_DIR}, default {@code ./data})
 * @param bootstrapServers an external cluster ({@code KAFKA_BOOTSTRAP_SERVERS}); empty starts the in-process broker
 * @param kafkaPort        client port of the in-process broker ({@code KAFKA_PORT}, default 9092; 0 picks a free port)
 * @param intakeSmtpPort   port of the email intake's SMTP listener ({@code INTAKE_SMTP_PORT}, default
 *                         {@value #DEFAULT_INTAKE_SMTP_PORT}; 0 picks a free port, a negative one turns it off)
 * @param intakeTrustedRelays relays whose {@code Authentication-Results} the intake believes
 *                         ({@code INTAKE_TRUSTED_RELAYS}, default {@value #DEFAULT_INTAKE_TRUSTED_RELAYS}: on one
 *                         machine the relay, or the person trying the README's example, connects from loopback)
 * @param kafka            how the services reach the cluster ({@code KAFKA_PROPERTIES_FILE}, {@code KAFKA_*}) and
 *                         the replication of the topics they create ({@code TOPIC_REPLICATION}, {@code TOPIC_MIN_ISR});
 *                         its bootstrap servers are {@code bootstrapServers}' or the in-process broker's, and on the
 *                         in-process broker (one node) the replication is the broker's default
 */
public record StandaloneSettings(int port, Path dataDir, Optional<String> bootstrapServers, int kafkaPort,
                                 int intakeSmtpPort, String intakeTrustedRelays, KafkaSettings kafka) {

    /** Settings for a plaintext cluster, or the in-process broker. */
    public StandaloneSettings(int port, Path dataDir, Optional<String> bootstrapServers, int kafkaPort,
                              int intakeSmtpPort, String intakeTrustedRelays) {
        this(port, dataDir, bootstrapServers, kafkaPort, intakeSmtpPort, intakeTrustedRelays,
                new KafkaSettings(bootstrapServers.orElse(null)));
    }

    public static final int DEFAULT_INTAKE_SMTP_PORT = 2525;
    public static final String DEFAULT_INTAKE_TRUSTED_RELAYS = "127.0.0.0/8,::1";

    /** Settings with the intake listener on a free port (tests and benchmarks, which may run side by side). */
    public StandaloneSettings(int port, Path dataDir, Optional<String> bootstrapServers, int kafkaPort) {
        this(port, dataDir, bootstrapServers, kafkaPort, 0);
    }

    /** Settings with the intake trusting relays on loopback. */
    public StandaloneSettings(int port, Path dataDir, Optional<String> bootstrapServers, int kafkaPort,
                              int intakeSmtpPort) {
        this(port, dataDir, bootstrapServers, kafkaPort, intakeSmtpPort, DEFAULT_INTAKE_TRUSTED_RELAYS);
    }

    public static StandaloneSettings fromEnvironment(Map<String, String> env) {
        return new StandaloneSettings(
                Integer.parseInt(env.getOrDefault("PORT", "8080")),
                Path.of(env.getOrDefault("DATA_DIR", "./data")),
                Optional.ofNullable(env.get("KAFKA_BOOTSTRAP_SERVERS")).filter(s -> !s.isBlank()),
                Integer.parseInt(env.getOrDefault("KAFKA_PORT", "9092")),
                Integer.parseInt(env.getOrDefault("INTAKE_SMTP_PORT", String.valueOf(DEFAULT_INTAKE_SMTP_PORT))),
                env.getOrDefault("INTAKE_TRUSTED_RELAYS", DEFAULT_INTAKE_TRUSTED_RELAYS),
                KafkaSettings.fromEnvironment(env));
    }
}
