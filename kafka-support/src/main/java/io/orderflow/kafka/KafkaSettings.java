package io.orderflow.kafka;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The Kafka cluster and how to reach it: the one Kafka settings record of the services, and the one place that
 * computes the properties every Kafka client of theirs starts from ({@link #clientProperties()}). A service enables it
 * with {@code @EnableConfigurationProperties(KafkaSettings.class)} or nests it in its own properties.
 *
 * <p>The client properties are, later ones winning: the Java properties file {@code KAFKA_PROPERTIES_FILE}
 * ({@code orderflow.kafka.properties-file}); every environment variable {@code KAFKA_<PROPERTY>} whose name is
 * {@code KAFKA_} and the upper-snake form of a property the Kafka producer, consumer or admin client defines
 * ({@code KAFKA_SECURITY_PROTOCOL} is {@code security.protocol}, {@code KAFKA_SASL_JAAS_CONFIG} is
 * {@code sasl.jaas.config}); the map {@code orderflow.kafka.properties.*}; and the bootstrap servers. Each client adds
 * what its own correctness needs (serializers, isolation level, transactions) over them.
 *
 * @param bootstrapServers {@code KAFKA_BOOTSTRAP_SERVERS}, default {@code localhost:9092}
 * @param propertiesFile   {@code KAFKA_PROPERTIES_FILE}: a Java properties file of client properties; blank for none
 * @param properties       client properties given by name ({@code orderflow.kafka.properties.[security.protocol]})
 * @param topicReplication {@code TOPIC_REPLICATION}: the replication factor of every topic the services create,
 *                         Kafka Streams' internal topics included; {@code -1} takes the broker's default
 * @param topicMinIsr      {@code TOPIC_MIN_ISR}: {@code min.insync.replicas} of those topics; {@code 0} leaves the
 *                         broker's default
 * @param instanceId       {@code INSTANCE_ID}: this instance's stable name in its Kafka Streams groups (static
 *                         membership); blank is {@link #instanceId(String) derived} from the host and the state directory
 * @param standbyReplicas  {@code NUM_STANDBY_REPLICAS}: warm copies of each Streams task's stores on other instances
 * @param sessionTimeout   {@code KAFKA_SESSION_TIMEOUT}: how long a Streams group waits for a silent member before
 *                         moving its tasks to another instance
 */
@ConfigurationProperties("orderflow.kafka")
public record KafkaSettings(String bootstrapServers, String propertiesFile, Map<String, String> properties,
                            short topicReplication, int topicMinIsr, String instanceId, int standbyReplicas,
                            Duration sessionTimeout) {

    private static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);
    /** The file in a Streams app's state directory that keeps the instance's id. */
    public static final String INSTANCE_ID_FILE = "instance-id";

    /** The environment variables that name a client property: {@code KAFKA_} and its upper-snake name. */
    private static final Map<String, String> ENVIRONMENT_NAMES = environmentNames();

    @ConstructorBinding
    public KafkaSettings(String bootstrapServers, String propertiesFile, Map<String, String> properties,
                         @DefaultValue("-1") short topicReplication, @DefaultValue("0") int topicMinIsr,
                         String instanceId, @DefaultValue("1") int standbyReplicas,
                         @DefaultValue("10s") Duration sessionTimeout) {
        this.bootstrapServers = bootstrapServers == null || bootstrapServers.isBlank()
                ? "localhost:9092" : bootstrapServers;
        this.propertiesFile = propertiesFile == null ? "" : propertiesFile.strip();
        this.properties = properties == null ? Map.of() : Map.copyOf(properties);
        this.topicReplication = topicReplication == 0 ? -1 : topicReplication;
        this.topicMinIsr = Math.max(0, topicMinIsr);
        this.instanceId = instanceId == null || instanceId.isBlank() ? null : instanceId.strip();
        this.standbyReplicas = Math.max(0, standbyReplicas);
        this.sessionTimeout = sessionTimeout == null ? DEFAULT_SESSION_TIMEOUT : sessionTimeout;
    }

    /** A plaintext cluster at {@code bootstrapServers}, broker-default replication (tests, tools). */
    public KafkaSettings(String bootstrapServers) {
        this(bootstrapServers, null, null, (short) -1, 0);
    }

    /** A cluster and its client properties, with the Streams group settings' defaults (tools, tests). */
    public KafkaSettings(String bootstrapServers, String propertiesFile, Map<String, String> properties,
                         short topicReplication, int topicMinIsr) {
        this(bootstrapServers, propertiesFile, properties, topicReplication, topicMinIsr, null, 1,
                DEFAULT_SESSION_TIMEOUT);
    }

    /**
     * The settings of a process that reads its environment itself (the topic provisioner, the flow publisher):
     * {@code KAFKA_BOOTSTRAP_SERVERS}, {@code KAFKA_PROPERTIES_FILE}, {@code TOPIC_REPLICATION}, {@code TOPIC_MIN_ISR}
     * and {@code INSTANCE_ID}; such a process runs no Streams app, so the group settings keep their defaults.
     */
    public static KafkaSettings fromEnvironment(Map<String, String> env) {
        return new KafkaSettings(env.get("KAFKA_BOOTSTRAP_SERVERS"), env.get("KAFKA_PROPERTIES_FILE"), null,
                Short.parseShort(env.getOrDefault("TOPIC_REPLICATION", "-1").strip()),
                Integer.parseInt(env.getOrDefault("TOPIC_MIN_ISR", "0").strip()), env.get("INSTANCE_ID"), 1,
                DEFAULT_SESSION_TIMEOUT);
    }

    /** These settings on another cluster (the standalone system's in-process broker). */
    public KafkaSettings withBootstrapServers(String servers) {
        return new KafkaSettings(servers, propertiesFile, properties, topicReplication, topicMinIsr, instanceId,
                standbyReplicas, sessionTimeout);
    }

    /** These settings with the Streams group settings given (the standalone system, tests). */
    public KafkaSettings withStreamsMembership(String instanceId, int standbyReplicas, Duration sessionTimeout) {
        return new KafkaSettings(bootstrapServers, propertiesFile, properties, topicReplication, topicMinIsr,
                instanceId, standbyReplicas, sessionTimeout);
    }

    /**
     * The instance id given, or else the one kept in the state directory ({@value #INSTANCE_ID_FILE}), made on the first
     * start from the host name and a hash of the directory's path (two instances on one machine cannot share a state
     * directory). Kept rather than worked out again, so that the instance keeps its name when its data moves: a
     * container recreated under another host name, a directory restored or mounted elsewhere. Under a new name, the
     * instance would join its groups beside its old static member, and a group whose coordinator had just restarted
     * with it (the standalone system's in-process broker) can wait for that member without end ({@link
     * FormerMembers}).
     */
    public String instanceId(String stateDir) {
        if (instanceId != null) {
            return instanceId;
        }
        Path dir = Path.of(stateDir).toAbsolutePath().normalize();
        Path kept = dir.resolve(INSTANCE_ID_FILE);
        try {
            if (Files.isRegularFile(kept)) {
                String id = Files.readString(kept, StandardCharsets.UTF_8).strip();
                if (!id.isEmpty()) {
                    return id;
                }
            }
            String id = derivedInstanceId(dir);
            Files.createDirectories(dir);
            Path written = Files.writeString(dir.resolve(INSTANCE_ID_FILE + ".new"), id, StandardCharsets.UTF_8);
            Files.move(written, kept, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot keep this instance's id in " + kept
                    + " (set INSTANCE_ID, or give the state directory to this process)", e);
        }
    }

    private static String derivedInstanceId(Path stateDir) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        return host + "-" + Integer.toHexString(stateDir.toString().hashCode());
    }

    /**
     * The properties every Kafka client starts from: the pass-through client properties of this process's environment
     * (see the type's comment) and the bootstrap servers. A fresh mutable map on each call.
     *
     * @throws IllegalStateException when the properties file cannot be read
     */
    public Map<String, Object> clientProperties() {
        return clientProperties(System.getenv());
    }

    /** {@link #clientProperties()} with the given environment in place of this process's. */
    public Map<String, Object> clientProperties(Map<String, String> env) {
        Map<String, Object> props = new HashMap<>();
        if (!propertiesFile.isEmpty()) {
            readFile(Path.of(propertiesFile)).forEach((name, value) -> props.put((String) name, value));
        }
        ENVIRONMENT_NAMES.forEach((variable, property) -> {
            String value = env.get(variable);
            if (value != null && !value.isBlank()) {
                props.put(property, value);
            }
        });
        props.putAll(properties);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return props;
    }

    /**
     * The configuration of a topic the services create: {@code min.insync.replicas} when {@link #topicMinIsr} is set,
     * nothing else (the replication factor is the topic's, see {@link #topicReplication}).
     */
    public Map<String, String> topicConfig() {
        return topicMinIsr > 0
                ? Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, String.valueOf(topicMinIsr))
                : Map.of();
    }

    /**
     * The names of the pass-through client properties set for this process (never their values, which hold secrets
     * such as the JAAS configuration), for a start-up log line.
     */
    public Set<String> passThroughNames() {
        Set<String> names = new TreeSet<>(clientProperties().keySet());
        names.remove(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG);
        return names;
    }

    /** {@code KAFKA_SECURITY_PROTOCOL} for {@code security.protocol}: the environment variable of a client property. */
    static String environmentName(String property) {
        return "KAFKA_" + property.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    private static Map<String, String> environmentNames() {
        Set<String> names = new TreeSet<>(ProducerConfig.configNames());
        names.addAll(ConsumerConfig.configNames());
        names.addAll(AdminClientConfig.configNames());
        // KAFKA_BOOTSTRAP_SERVERS is the bootstrapServers setting itself
        names.remove(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG);
        Map<String, String> byVariable = new HashMap<>();
        names.forEach(name -> byVariable.put(environmentName(name), name));
        return Map.copyOf(byVariable);
    }

    private static Properties readFile(Path file) {
        Properties loaded = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            loaded.load(reader);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read the Kafka client properties file " + file
                    + " (KAFKA_PROPERTIES_FILE)", new UncheckedIOException(e));
        }
        return loaded;
    }
}
