package io.orderflow.kafka;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Where the Kafka cluster is ({@code orderflow.kafka.bootstrap-servers}, from {@code KAFKA_BOOTSTRAP_SERVERS}) and how
 * the Kafka Streams apps (the processor, the runner) take part in their groups: the one Kafka settings record of the
 * services. A service enables it with {@code @EnableConfigurationProperties(KafkaSettings.class)}.
 *
 * @param instanceId      {@code INSTANCE_ID}: this instance's stable name in its Streams groups (static membership);
 *                        blank is {@link #instanceId(String) derived} from the host and the state directory
 * @param standbyReplicas {@code NUM_STANDBY_REPLICAS}: warm copies of each task's stores on other instances
 * @param sessionTimeout  {@code KAFKA_SESSION_TIMEOUT}: how long the group waits for a silent member before moving its
 *                        tasks to another instance
 */
@ConfigurationProperties("orderflow.kafka")
public record KafkaSettings(String bootstrapServers, String instanceId, @DefaultValue("1") int standbyReplicas,
                            @DefaultValue("10s") Duration sessionTimeout) {

    @ConstructorBinding
    public KafkaSettings {
        bootstrapServers = bootstrapServers == null || bootstrapServers.isBlank() ? "localhost:9092" : bootstrapServers;
        sessionTimeout = sessionTimeout == null ? Duration.ofSeconds(10) : sessionTimeout;
    }

    public KafkaSettings(String bootstrapServers) {
        this(bootstrapServers, null, 1, null);
    }

    /**
     * The instance id given, or else one that stays the same across restarts of this instance and differs between
     * instances: the host name and a hash of the state directory, which two instances on one machine cannot share.
     */
    public String instanceId(String stateDir) {
        if (instanceId != null && !instanceId.isBlank()) {
            return instanceId;
        }
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        String dir = Path.of(stateDir).toAbsolutePath().normalize().toString();
        return host + "-" + Integer.toHexString(dir.hashCode());
    }
}
