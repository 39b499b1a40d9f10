package io.orderflow.kafka.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import io.orderflow.kafka.SocketBuffers;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker (KRaft, broker and controller roles) running in this JVM.
 *
 * <p>Storage is formatted on first start and kept under the data directory, so a restart on the same directory keeps
 * every topic and record. Used by the standalone launcher at run time and by the tests when Docker is absent.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    /** What a clean stop leaves in the log directory (Kafka's own marker; a killed broker leaves none). */
    private static final String CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown";

    private final KafkaRaftServer server;
    private final String bootstrapServers;
    /** What a client needs besides the bootstrap servers to be let in (SASL or TLS settings, or nothing). */
    private final Map<String, Object> clientSecurity;
    /** Whether this start found its directory left by a broker that did not stop cleanly (killed, or lost power). */
    private final boolean afterUncleanStop;

    private EmbeddedKafkaBroker(KafkaRaftServer server, String bootstrapServers, Map<String, Object> clientSecurity,
                                boolean afterUncleanStop) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
        this.clientSecurity = clientSecurity;
        this.afterUncleanStop = afterUncleanStop;
    }

    /**
     * Formats the storage under {@code dataDir} when it is new, starts the broker and waits until it answers with every
     * partition led.
     *
     * <p>When the broker that last used {@code dataDir} did not stop cleanly (its JVM was killed), the first start
     * recovers the logs, and the broker is then stopped cleanly and started again before this returns (1.8 to 3.5 s
     * more in the crash rounds of docs/operations.md, 100,000 orders kept). Started after a kill, a broker first takes
     * the leadership its metadata still gives it; then the controller fences its previous registration (no partition
     * has a leader) and elects it again, so each group and transaction coordinator loads its partition, loses it and
     * loads it again within a second or two, loads failing and completing out of turn ({@code Failed to load metadata
     * ... no longer the leader} in Kafka's log). The restarts after which the system stalled, a group's committed
     * offsets held unstable or a restore that did not move, were all such starts (docs/operations.md). After a clean
     * stop the broker registers at once and each coordinator loads its partition once.
     *
     * @param port the client port, or 0 for any free port
     */
    public static EmbeddedKafkaBroker start(Path dataDir, int port) {
        return start(dataDir, port, null);
    }

    /**
     * A broker whose client listener is {@code SASL_PLAINTEXT} with the {@code PLAIN} mechanism, letting in one user
     * (the broker itself connects as that user too); for checking that the services reach a secured cluster.
     *
     * @param port the client port, or 0 for any free port
     */
    public static EmbeddedKafkaBroker startWithSaslPlain(Path dataDir, int port, String user, String password) {
        return start(dataDir, port, new SaslUser(user, password));
    }

    /**
     * A broker whose client listener is {@code SSL}: it shows the key and certificate of {@code keyStore} and trusts
     * the certificates of {@code trustStore} (the broker itself connects through that listener too); for checking that
     * the services reach a cluster over TLS. Both stores are PKCS12 files with the one {@code password}, the key's
     * password included; the certificate must name 127.0.0.1, which clients verify by default.
     *
     * @param port the client port, or 0 for any free port
     */
    public static EmbeddedKafkaBroker startWithTls(Path dataDir, int port, Path keyStore, Path trustStore,
                                                   String password) {
        return start(dataDir, port, new TlsStores(keyStore.toAbsolutePath(), trustStore.toAbsolutePath(), password));
    }

    /** How the client listener lets clients in, and what a client needs to be let in. */
    private sealed interface ListenerSecurity {

        /** The listener's name and security protocol. */
        String protocol();

        /** The broker's settings for the listener besides its name and protocol. */
        Map<String, String> brokerSettings();

        /** What a client needs besides the bootstrap servers. */
        Map<String, Object> clientSecurity();
    }

    private record SaslUser(String name, String password) implements ListenerSecurity {

        String jaasConfig(boolean withUsers) {
            String login = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + name
                    + "\" password=\"" + password + "\"";
            return login + (withUsers ? " user_" + name + "=\"" + password + "\";" : ";");
        }

        @Override
        public String protocol() {
            return "SASL_PLAINTEXT";
        }

        @Override
        public Map<String, String> brokerSettings() {
            return Map.of(
                    "sasl.enabled.mechanisms", "PLAIN",
                    "sasl.mechanism.inter.broker.protocol", "PLAIN",
                    "listener.name.sasl_plaintext.plain.sasl.jaas.config", jaasConfig(true));
        }

        @Override
        public Map<String, Object> clientSecurity() {
            return Map.of(
                    "security.protocol", "SASL_PLAINTEXT",
                    "sasl.mechanism", "PLAIN",
                    "sasl.jaas.config", jaasConfig(false));
        }
    }

    private record TlsStores(Path keyStore, Path trustStore, String password) implements ListenerSecurity {

        @Override
        public String protocol() {
            return "SSL";
        }

        @Override
        public Map<String, String> brokerSettings() {
            return Map.of(
                    "ssl.keystore.type", "PKCS12",
                    "ssl.keystore.location", keyStore.toString(),
                    "ssl.keystore.password", password,
                    "ssl.key.password", password,
                    "ssl.truststore.type", "PKCS12",
                    "ssl.truststore.location", trustStore.toString(),
                    "ssl.truststore.password", password);
        }

        @Override
        public Map<String, Object> clientSecurity() {
            return Map.of(
                    "security.protocol", "SSL",
                    "ssl.truststore.type", "PKCS12",
                    "ssl.truststore.location", trustStore.toString(),
                    "ssl.truststore.password", password);
        }
    }

    private static EmbeddedKafkaBroker start(Path dataDir, int port, ListenerSecurity security) {
        try {
            Path logDir = Files.createDirectories(dataDir.toAbsolutePath().resolve("kafka"));
            int clientPort = port == 0 ? freePort() : port;
            int controllerPort = freePort();
            KafkaConfig config = new KafkaConfig(settings(logDir, clientPort, controllerPort, security), false);
            boolean stoppedUncleanly = Files.exists(logDir.resolve("meta.properties"))
                    && !Files.exists(logDir.resolve(CLEAN_SHUTDOWN_FILE));
            format(config, logDir);
            UniformRequestHistograms.install();
            String bootstrap = "127.0.0.1:" + clientPort;
            Map<String, Object> clientSecurity = security == null ? Map.of() : security.clientSecurity();
            EmbeddedKafkaBroker broker = startServer(config, bootstrap, clientSecurity, false);
            if (stoppedUncleanly) {
                long restarting = System.nanoTime();
                broker.close();
                broker = startServer(config, bootstrap, clientSecurity, true);
                log.info("Kafka broker stopped uncleanly last time: recovered, stopped cleanly and started again in "
                        + "{} ms, so that its coordinators load each partition once",
                        Duration.ofNanos(System.nanoTime() - restarting).toMillis());
            }
            log.info("Kafka broker ready on {} with data in {}", bootstrap, logDir);
            return broker;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static EmbeddedKafkaBroker startServer(KafkaConfig config, String bootstrap,
                                                  Map<String, Object> clientSecurity, boolean afterUncleanStop) {
        KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
        EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker(server, bootstrap, clientSecurity, afterUncleanStop);
        broker.awaitReady(true);
        return broker;
    }

    /**
     * A cluster of {@code nodes} brokers in this JVM (each broker and controller, one quorum), every topic with
     * {@code nodes} replicas and {@code min.insync.replicas} one less: for tests of what a broker's loss does. Each
     * node's data is under {@code dataDir/kafka-<id>}; the nodes are started together, since each waits for a quorum.
     */
    public static List<EmbeddedKafkaBroker> startCluster(Path dataDir, int nodes) {
        try {
            int[] clientPorts = new int[nodes];
            int[] controllerPorts = new int[nodes];
            StringBuilder voters = new StringBuilder();
            for (int i = 0; i < nodes; i++) {
                clientPorts[i] = freePort();
                controllerPorts[i] = freePort();
                voters.append(i == 0 ? "" : ",").append(i + 1).append("@127.0.0.1:").append(controllerPorts[i]);
            }
            String clusterId = Uuid.randomUuid().toString();
            UniformRequestHistograms.install();
            List<CompletableFuture<EmbeddedKafkaBroker>> starting = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                Path logDir = Files.createDirectories(dataDir.toAbsolutePath().resolve("kafka-" + (i + 1)));
                Properties settings = settings(logDir, i + 1, clientPorts[i], controllerPorts[i], voters.toString(),
                        nodes, null);
                // A node stops as a crashed one does, without asking the controllers first: the last nodes of a
                // cluster that lost its quorum would otherwise wait minutes for an answer.
                settings.put("controlled.shutdown.enable", "false");
                KafkaConfig config = new KafkaConfig(settings, false);
                format(config, logDir, clusterId);
                String bootstrap = "127.0.0.1:" + clientPorts[i];
                String thread = "kafka-" + (i + 1) + "-start";
                starting.add(CompletableFuture.supplyAsync(() -> {
                    KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
                    server.startup();
                    EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker(server, bootstrap, Map.of(), false);
                    broker.awaitReady(false);
                    return broker;
                }, start -> new Thread(start, thread).start()));
            }
            List<EmbeddedKafkaBroker> brokers = starting.stream().map(CompletableFuture::join).toList();
            log.info("Kafka cluster of {} ready on {}", nodes, brokers.stream()
                    .map(EmbeddedKafkaBroker::bootstrapServers).toList());
            return brokers;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * Whether this start found its data left by a broker that did not stop cleanly; it was then recovered, stopped
     * cleanly and started again before this broker answered (see {@link #start(Path, int)}).
     */
    public boolean startedAfterUncleanStop() {
        return afterUncleanStop;
    }

    /** The client properties besides the bootstrap servers that this broker's listener requires (none: plaintext). */
    public Map<String, Object> clientSecurity() {
        return clientSecurity;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
        log.info("Kafka broker on {} stopped", bootstrapServers);
    }

    /**
     * The one node of a single-broker system; with {@code security}, its client listener is secured so.
     *
     * <p>Its broker heartbeats its controller, in the same JVM, every 500 ms and counts as gone after 3 s instead of
     * 2 s and 9 s. The node stops without telling its controller when its JVM is killed; started again, its broker
     * may register only once the controller has seen the previous registration's session expire, and until then no
     * partition has a leader: with Kafka's default the restart waited about 9 s for that alone (2026-11-27, 2-core
     * machine, a JVM killed under load and started again on its data).
     */
    private static Properties settings(Path logDir, int clientPort, int controllerPort, ListenerSecurity security) {
        Properties p = settings(logDir, 1, clientPort, controllerPort, "1@127.0.0.1:" + controllerPort, 1, security);
        p.put("broker.heartbeat.interval.ms", "500");
        p.put("broker.session.timeout.ms", "3000");
        return p;
    }

    /**
     * One node's settings; {@code replicas} is the replication of the internal topics and the default of every
     * topic, with {@code min.insync.replicas} one less (at least 1).
     */
    private static Properties settings(Path logDir, int nodeId, int clientPort, int controllerPort, String voters,
                                       int replicas, ListenerSecurity security) {
        String minIsr = String.valueOf(Math.max(1, replicas - 1));
        Properties p = new Properties();
        p.putAll(Map.ofEntries(
                Map.entry("process.roles", "broker,controller"),
                Map.entry("node.id", String.valueOf(nodeId)),
                Map.entry("controller.quorum.voters", voters),
                Map.entry("listeners", "PLAINTEXT://127.0.0.1:" + clientPort + ",CONTROLLER://127.0.0.1:" + controllerPort),
                Map.entry("advertised.listeners", "PLAINTEXT://127.0.0.1:" + clientPort),
                Map.entry("controller.listener.names", "CONTROLLER"),
                Map.entry("inter.broker.listener.name", "PLAINTEXT"),
                Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
                Map.entry("log.dirs", logDir.toString()),
                Map.entry("num.partitions", "3"),
                Map.entry("auto.create.topics.enable", "false"),
                Map.entry("default.replication.factor", String.valueOf(replicas)),
                Map.entry("min.insync.replicas", minIsr),
                Map.entry("offsets.topic.replication.factor", String.valueOf(replicas)),
                Map.entry("offsets.topic.num.partitions", "6"),
                Map.entry("transaction.state.log.replication.factor", String.valueOf(replicas)),
                Map.entry("transaction.state.log.min.isr", minIsr),
                Map.entry("transaction.state.log.num.partitions", "6"),
                Map.entry("share.coordinator.state.topic.replication.factor", String.valueOf(replicas)),
                Map.entry("share.coordinator.state.topic.min.isr", minIsr),
                Map.entry("group.initial.rebalance.delay.ms", "0"),
                // A transaction left open by a process that died is aborted once its timeout (Kafka Streams: 10 s)
                // has passed, at the next check for such transactions: every second rather than every 10 s, so a
                // consumer group whose offsets it holds unstable waits at most a second past the timeout.
                Map.entry("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000"),
                // small footprint: this broker shares its JVM with four services
                Map.entry("log.cleaner.dedupe.buffer.size", String.valueOf(8 * 1024 * 1024)),
                Map.entry("num.network.threads", "2"),
                Map.entry("num.io.threads", "4"),
                Map.entry("num.recovery.threads.per.data.dir", "2")));
        p.putAll(SocketBuffers.broker());
        if (security != null) {
            String protocol = security.protocol();
            String listener = protocol + "://127.0.0.1:" + clientPort;
            p.put("listeners", listener + ",CONTROLLER://127.0.0.1:" + controllerPort);
            p.put("advertised.listeners", listener);
            p.put("inter.broker.listener.name", protocol);
            p.put("listener.security.protocol.map", protocol + ":" + protocol + ",CONTROLLER:PLAINTEXT");
            p.putAll(security.brokerSettings());
        }
        return p;
    }

    /** Formats the log directory unless it already holds a formatted broker (then the data is kept as it is). */
    private static void format(KafkaConfig config, Path logDir) {
        format(config, logDir, Uuid.randomUuid().toString());
    }

    private static void format(KafkaConfig config, Path logDir, String clusterId) {
        if (Files.exists(logDir.resolve("meta.properties"))) {
            return;
        }
        try {
            new Formatter()
                    .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                    .setNodeId(config.nodeId())
                    .setClusterId(clusterId)
                    .setControllerListenerName(config.controllerListenerNames().getFirst())
                    .setMetadataLogDirectory(config.metadataLogDir())
                    .setDirectories(List.of(logDir.toString()))
                    .run();
        } catch (Exception e) {
            throw new IllegalStateException("Could not format Kafka storage in " + logDir, e);
        }
    }

    /**
     * Waits until the broker answers and, with {@code everyPartitionLed} (a single node), every partition has a
     * leader. On a start after a crash the broker answers before that: its stop was unclean, so the controller first
     * fences its previous registration, takes it out of every partition's ISR, and elects it leader again (an unclean
     * election, it being the only replica) once it has registered anew. Services started after it find every
     * partition led. A node of a cluster does not wait for that: with other nodes down, some partitions may have no
     * leader for as long as they are.
     */
    private void awaitReady(boolean everyPartitionLed) {
        Map<String, Object> config = new HashMap<>(clientSecurity);
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) READY_TIMEOUT.toMillis());
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        try (Admin admin = Admin.create(config)) {
            admin.describeCluster().nodes().get();
            while (everyPartitionLed && !everyPartitionLed(admin)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("partitions without a leader after " + READY_TIMEOUT.toSeconds()
                            + " s");
                }
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the Kafka broker on " + bootstrapServers, e);
        } catch (Exception e) {
            throw new IllegalStateException("Kafka broker on " + bootstrapServers + " did not become ready", e);
        }
    }

    private static boolean everyPartitionLed(Admin admin) throws InterruptedException {
        try {
            Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true).timeoutMs(5000)).names()
                    .get();
            return admin.describeTopics(topics).allTopicNames().get().values().stream()
                    .flatMap(topic -> topic.partitions().stream())
                    .allMatch(partition -> partition.leader() != null && !partition.leader().isEmpty());
        } catch (ExecutionException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }
}
