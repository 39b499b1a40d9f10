package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.orderflow.dispatcher.dispatch.DispatcherTopics;
import io.orderflow.kafka.embedded.EmbeddedKafkaBroker;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.topics.Topics;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The whole system on a cluster that lets in only a client configured for it, through {@code KAFKA_PROPERTIES_FILE}.
 *
 * <p>{@link Sasl}: a broker whose one listener is SASL_PLAINTEXT with the PLAIN mechanism. Given the credentials, every
 * client of every service gets in (the Streams apps, the gateway's readers and producers, the dispatcher's
 * spring-kafka listeners and admin) and an order completes; the topics the system creates, Kafka Streams' changelogs
 * and the dispatcher's retry topics included, carry {@code TOPIC_MIN_ISR}; and the system reports itself ready, its
 * {@code kafka} checks let in as its other clients are. With a wrong password the start fails saying so.
 *
 * <p>{@link Tls}: a broker whose one listener is SSL, with a key store and a trust store made for the test by the JDK's
 * {@code keytool}. Given a trust store that holds the broker's certificate, an order completes and the system reports
 * itself ready; with a trust store that does not, the start fails naming the failed TLS handshake.
 */
@OwnSystem
class SecuredClusterEndToEndTest {

    @Nested
    class Sasl {

        private static final String USER = "orderflow";
        private static final String PASSWORD = "kafka-secret";
        private static EmbeddedKafkaBroker broker;

        @BeforeAll
        static void startSecuredBroker() {
            broker = EmbeddedKafkaBroker.startWithSaslPlain(TestKafka.uniqueStateDir("sasl-kafka"), 0, USER,
                    PASSWORD);
        }

        @AfterAll
        static void stopBroker() {
            if (broker != null) {
                broker.close();
            }
        }

        @Test
        void everyServiceReachesTheSaslClusterAndAnOrderCompletes() throws Exception {
            Path credentials = propertiesFile(PASSWORD);
            KafkaSettings kafka = new KafkaSettings(broker.bootstrapServers(), credentials.toString(), null,
                    (short) 1, 1);

            AtomicInteger hooks = new AtomicInteger();
            HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            receiver.createContext("/hook", exchange -> {
                exchange.getRequestBody().readAllBytes();
                hooks.incrementAndGet();
                exchange.sendResponseHeaders(204, -1);
                exchange.close();
            });
            receiver.start();
            try (StandaloneSystem system = StandaloneSystem.start(settings(broker, kafka));
                 Admin admin = Admin.create(adminConfig())) {
                WebTestClient http = http(system);
                // the dispatcher writes the subscription with its spring-kafka producer and answers once its view
                // has it
                http.post().uri("/api/v1/webhook-subscriptions").contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(Map.of("url", "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook",
                                "events", List.of("order.completed"))).exchange()
                        .expectStatus().isCreated();

                anOrderCompletesAndTheSystemIsReady(http, "cus_sasl");

                // the dispatcher's listeners read the order's events and its attempts, and commit, on the secured
                // listener
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(hooks).hasPositiveValue());
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                        assertThat(committedOffsets(admin, "webhook-event-fan-out")).isGreaterThan(0));

                List<String> topics = List.copyOf(admin.listTopics().names().get());
                String changelog = topics.stream().filter(name -> name.endsWith("-changelog")).findFirst()
                        .orElseThrow();
                for (String topic : List.of(Topics.ORDER_COMMANDS.name(), changelog,
                        DispatcherTopics.DELIVERY_ATTEMPTS + "-retry-0", DispatcherTopics.DELIVERY_ATTEMPTS + "-dlt")) {
                    ConfigEntry minIsr = topicConfig(admin, topic).get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG);
                    assertThat(minIsr.source()).as(topic).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
                    assertThat(minIsr.value()).as(topic).isEqualTo("1");
                }
            } finally {
                receiver.stop(0);
            }
        }

        @Test
        void aWrongPasswordStopsTheStartWithAClearMessage() throws IOException {
            Path wrongPassword = propertiesFile("not-the-password");
            KafkaSettings kafka = new KafkaSettings(broker.bootstrapServers(), wrongPassword.toString(), null,
                    (short) -1, 0);

            assertThatThrownBy(() -> StandaloneSystem.start(settings(broker, kafka)).close())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(broker.bootstrapServers())
                    .hasMessageContaining("Invalid username or password");
        }

        /** What an operator writes into {@code KAFKA_PROPERTIES_FILE} for a SASL/PLAIN cluster. */
        private static Path propertiesFile(String password) throws IOException {
            Path file = Files.createTempFile("kafka-client", ".properties");
            Files.writeString(file, """
                    security.protocol=SASL_PLAINTEXT
                    sasl.mechanism=PLAIN
                    sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \
                    username="%s" password="%s";
                    """.formatted(USER, password));
            return file;
        }

        private static Map<String, Object> adminConfig() {
            Map<String, Object> config = new HashMap<>(broker.clientSecurity());
            config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            return config;
        }
    }

    @Nested
    class Tls {

        private static final String PASSWORD = "store-secret";
        private static Path stores;
        private static EmbeddedKafkaBroker broker;

        @BeforeAll
        static void startTlsBroker() throws Exception {
            stores = Files.createTempDirectory("kafka-tls");
            Path keyStore = stores.resolve("broker.p12");
            keytool("-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1",
                    "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2",
                    "-storetype", "PKCS12", "-keystore", keyStore.toString(), "-storepass", PASSWORD);
            keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", keyStore.toString(),
                    "-storepass", PASSWORD, "-file", stores.resolve("broker.crt").toString());
            Path trustStore = trustStore("trusted.p12", stores.resolve("broker.crt"));

            // a certificate of another party: a trust store of it alone does not trust the broker
            Path otherKeys = stores.resolve("other.p12");
            keytool("-genkeypair", "-alias", "other", "-keyalg", "EC", "-groupname", "secp256r1",
                    "-dname", "CN=someone-else", "-validity", "2",
                    "-storetype", "PKCS12", "-keystore", otherKeys.toString(), "-storepass", PASSWORD);
            keytool("-exportcert", "-rfc", "-alias", "other", "-keystore", otherKeys.toString(),
                    "-storepass", PASSWORD, "-file", stores.resolve("other.crt").toString());
            trustStore("untrusted.p12", stores.resolve("other.crt"));

            broker = EmbeddedKafkaBroker.startWithTls(TestKafka.uniqueStateDir("tls-kafka"), 0, keyStore, trustStore,
                    PASSWORD);
        }

        @AfterAll
        static void stopBroker() {
            if (broker != null) {
                broker.close();
            }
        }

        @Test
        void everyServiceReachesTheTlsClusterAndTheSystemIsReady() throws Exception {
            KafkaSettings kafka = new KafkaSettings(broker.bootstrapServers(),
                    propertiesFile(stores.resolve("trusted.p12")).toString(), null, (short) -1, 0);

            try (StandaloneSystem system = StandaloneSystem.start(settings(broker, kafka))) {
                anOrderCompletesAndTheSystemIsReady(http(system), "cus_tls");
            }
        }

        @Test
        void aTrustStoreWithoutTheBrokersCertificateStopsTheStart() throws IOException {
            KafkaSettings kafka = new KafkaSettings(broker.bootstrapServers(),
                    propertiesFile(stores.resolve("untrusted.p12")).toString(), null, (short) -1, 0);

            assertThatThrownBy(() -> StandaloneSystem.start(settings(broker, kafka)).close())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(broker.bootstrapServers())
                    .hasMessageContaining("SSL handshake failed");
        }

        /** What an operator writes into {@code KAFKA_PROPERTIES_FILE} for a cluster with a TLS listener. */
        private static Path propertiesFile(Path trustStore) throws IOException {
            Path file = Files.createTempFile("kafka-client", ".properties");
            Files.writeString(file, """
                    security.protocol=SSL
                    ssl.truststore.type=PKCS12
                    ssl.truststore.location=%s
                    ssl.truststore.password=%s
                    """.formatted(trustStore.toAbsolutePath(), PASSWORD));
            return file;
        }

        private static Path trustStore(String name, Path certificate) throws Exception {
            Path store = stores.resolve(name);
            keytool("-importcert", "-noprompt", "-alias", "trusted", "-file", certificate.toString(),
                    "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD);
            return store;
        }

        /** Runs the JDK's {@code keytool} of this JVM and fails with its output unless it succeeds. */
        private static void keytool(String... arguments) throws Exception {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
            command.addAll(List.of(arguments));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("keytool " + String.join(" ", arguments) + " failed: " + output);
            }
        }
    }

    /** An order completes, and readiness is UP: the gateway's kafka check and those of the services behind it. */
    private static void anOrderCompletesAndTheSystemIsReady(WebTestClient http, String customerId) {
        String orderId = (String) http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", "storefront_order", "input", Map.of(
                        "type", "storefront_order", "customerId", customerId, "currency", "USD",
                        "lines", List.of(Map.of("sku", "WIDGET-1", "qty", 1, "unitPrice", 12.5)),
                        "meta", Map.of("shipTo", "1 Main Street")))).exchange()
                .expectStatus().isEqualTo(HttpStatus.CREATED)
                .expectBody(Map.class).returnResult().getResponseBody().get("orderId");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> http.get().uri("/api/v1/orders/" + orderId)
                .exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("completed"));

        // ready: each service's kafka check reaches the cluster with the same client properties as its other clients
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> http.get().uri("/actuator/health/readiness")
                .exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("UP"));
    }

    private static WebTestClient http(StandaloneSystem system) {
        return WebTestClient.bindToServer().baseUrl("http://localhost:" + system.gatewayPort())
                .responseTimeout(Duration.ofSeconds(15)).build();
    }

    private static StandaloneSettings settings(EmbeddedKafkaBroker broker, KafkaSettings kafka) {
        return new StandaloneSettings(0, TestKafka.uniqueStateDir("secured-standalone"),
                Optional.of(broker.bootstrapServers()), 0, -1, StandaloneSettings.DEFAULT_INTAKE_TRUSTED_RELAYS, kafka);
    }

    private static long committedOffsets(Admin admin, String group) throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(
                Map.of(group, new ListConsumerGroupOffsetsSpec())).partitionsToOffsetAndMetadata(group).get();
        return offsets.entrySet().stream()
                .filter(e -> e.getKey().topic().equals(Topics.ORDER_EVENTS.name()) && e.getValue() != null)
                .mapToLong(e -> e.getValue().offset()).sum();
    }

    private static Map<String, ConfigEntry> topicConfig(Admin admin, String topic)
            throws ExecutionException, InterruptedException {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
        Map<String, ConfigEntry> entries = new HashMap<>();
        config.entries().forEach(entry -> entries.put(entry.name(), entry));
        return entries;
    }
}
