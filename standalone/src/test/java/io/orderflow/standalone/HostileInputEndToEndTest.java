package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.angus.mail.smtp.SMTPTransport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * What a hostile client or a poisoned record does to the standalone system: it fails or is refused, the one order it
 * concerns is set aside as an incident, and an ordinary storefront order started after it completes as usual.
 */
@ExtendWith(SharedStandalone.class)
class HostileInputEndToEndTest {

    private static final Duration ORDINARY = Duration.ofSeconds(30);

    private static WebTestClient http;
    private static KafkaProducer<String, byte[]> producer;

    @BeforeAll
    static void start(StandaloneSystem system) {
        http = SharedStandalone.client(system);
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, system.bootstrapServers(),
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2 * 1024 * 1024),
                new StringSerializer(), new ByteArraySerializer());
    }

    @AfterAll
    static void stop() {
        if (producer != null) {
            producer.close();
        }
    }

    @Test
    void pathological_order_texts_do_not_hold_up_other_orders() {
        List<String> texts = List.of(
                "1 x A" + " ".repeat(3_000) + "@x",
                "1 x A" + " ".repeat(49_990) + "@x",
                "1 x A " + " @".repeat(24_995),
                "9".repeat(50_000),
                ("1 x A" + " ".repeat(200) + "@x\n").repeat(240));
        List<String> hostile = texts.stream().map(text -> post("/api/v1/orders", Map.of(
                "flowId", "purchase_request", "input", Map.of("type", "purchase_request", "documentText", text)),
                201).get("orderId").asString()).toList();

        assertOrdinaryOrderCompletes();
        for (String orderId : hostile) {
            await().atMost(ORDINARY).untilAsserted(() -> {
                JsonNode order = get("/api/v1/orders/" + orderId);
                assertThat(order.get("status").asString()).isEqualTo("declined");
                assertThat(order.get("reason").asString()).isEqualTo("No order lines found in the request");
            });
        }
    }

    @Test
    void pathological_mails_do_not_hold_up_other_orders(StandaloneSystem system) {
        List<String[]> mails = List.of(
                new String[] {"text/plain", "1 x A" + " ".repeat(3_000) + "@x\n2 x PAPER-A4\n"},
                new String[] {"text/html", "<p>2 x PAPER-A4</p>" + "<div><span a=\"".repeat(10_000)},
                new String[] {"text/html", "<p>2 x PAPER-A4</p>" + "<p".repeat(50_000)},
                new String[] {"text/html", "<p>2 x PAPER-A4</p><script a=".repeat(5_000)});
        for (String[] mail : mails) {
            String answer = sendMail(system.intakePort(), mail[0], mail[1]);
            assertThat(answer).as("the answer to a %s mail", mail[0]).startsWith("250 2.0.0 Accepted: order ord_");
        }
        assertOrdinaryOrderCompletes();
    }

    @Test
    void poisoned_records_become_incidents_or_are_refused_and_the_partitions_move_on() {
        String noNode = waitingB2bOrder();
        String noRequest = waitingB2bOrder();
        String tooLarge = waitingB2bOrder();
        String victim = waitingB2bOrder();
        String other = waitingB2bOrder();
        JsonNode tooLargeState = get("/api/v1/orders/" + tooLarge);

        send(Topics.ORDER_COMMANDS.name(), noNode, "{not json".getBytes(StandardCharsets.UTF_8));
        send(Topics.NODE_TASKS.name(), noNode, new byte[] {0, 1, 2, 3});
        send(Topics.RUN_REPORTS.name(), noNode, "]]]".getBytes(StandardCharsets.UTF_8));
        send(Topics.RUN_REPORTS.name(), noNode, json(Map.of("type", "node_detail", "orderId", noNode,
                "instanceId", noNode + ".1")));
        send(Topics.RUN_REPORTS.name(), noRequest, json(Map.of("type", "wait_requested", "orderId", noRequest,
                "instanceId", noRequest + ".1", "generation", 1)));
        send(Topics.RUN_REPORTS.name(), tooLarge, json(Map.of("type", "progress", "orderId", tooLarge,
                "instanceId", tooLargeState.get("instanceId").asString(), "generation", 1, "seq", 1_000_000,
                "status", "waiting", "at", 0, "vars", Map.of("blob", "x".repeat(600_000)))));
        // keyed for one order, naming another: refused, neither changes
        send(Topics.RUN_REPORTS.name(), victim, json(Map.of("type", "node_detail", "orderId", other,
                "instanceId", other + ".1", "nodeId", "await_payment",
                "patch", Map.of("status", "failed", "error", "forged"))));
        send(Topics.NODE_TASKS.name(), victim, json(Map.of("type", "terminate_run", "orderId", other,
                "instanceId", other + ".1", "reason", "forged")));

        await().atMost(ORDINARY).untilAsserted(() -> {
            assertIncident(noNode, "A node detail report names no node");
            assertIncident(noRequest, "A wait request lacks its node or event");
            assertIncident(tooLarge, "over the limit of 524288");
        });
        JsonNode incidents = get("/api/v1/incidents").get("incidents");
        assertThat(incidents.valueStream().map(i -> i.get("orderId").asString()).toList())
                .contains(noNode, noRequest, tooLarge).doesNotContain(victim, other);
        assertThat(get("/api/v1/orders/" + victim).get("status").asString()).isEqualTo("waiting");
        assertThat(get("/api/v1/orders/" + other).get("status").asString()).isEqualTo("waiting");
        assertThat(get("/api/v1/orders/" + other).get("nodes").get("await_payment").get("status").asString())
                .isEqualTo("waiting");

        assertOrdinaryOrderCompletes();
        // the orders the forged records named still take their events: the forged terminate did not end a run
        for (String orderId : List.of(victim, other)) {
            http.post().uri("/api/v1/orders/" + orderId + "/events").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("event", "payment.received")).exchange().expectStatus().isOk();
            await().atMost(ORDINARY).until(() -> get("/api/v1/orders/" + orderId).get("status").asString()
                    .equals("completed"));
        }
    }

    private static void assertIncident(String orderId, String cause) {
        JsonNode order = get("/api/v1/orders/" + orderId);
        assertThat(order.get("status").asString()).isEqualTo("failed");
        assertThat(order.get("reason").asString()).startsWith("Incident: ").contains(cause);
        assertThat(order.get("waits")).isEmpty();
    }

    private static String waitingB2bOrder() {
        String orderId = post("/api/v1/orders", Map.of("flowId", "b2b_order", "input", Map.of(
                "type", "b2b_order", "customerId", "cus_poison", "currency", "EUR",
                "lines", List.of(Map.of("sku", "WIDGET-1", "qty", 1, "unitPrice", 20)),
                "meta", Map.of("shipTo", "5 Harbour Road, Dublin"))), 201).get("orderId").asString();
        await().atMost(ORDINARY).until(() -> get("/api/v1/orders/" + orderId).get("status").asString()
                .equals("waiting"));
        return orderId;
    }

    private static void assertOrdinaryOrderCompletes() {
        String orderId = post("/api/v1/orders", Map.of("flowId", "storefront_order", "input", Map.of(
                "type", "storefront_order", "customerId", "cus_after", "currency", "USD",
                "lines", List.of(Map.of("sku", "MUG-BLUE", "qty", 1, "unitPrice", 12.5)),
                "meta", Map.of("shipTo", "1 Main Street, Springfield"))), 201).get("orderId").asString();
        await().atMost(ORDINARY).until(() -> get("/api/v1/orders/" + orderId).get("status").asString()
                .equals("completed"));
    }

    /** Delivers a mail from the operations department to purchasing, as the trusted relay on loopback would. */
    private static String sendMail(int port, String contentType, String body) {
        String raw = "Authentication-Results: mx.orderflow.local; dmarc=pass header.from=orderflow.example\r\n"
                + "From: ops@orderflow.example\r\nTo: purchasing@orderflow.example\r\nSubject: Refill\r\n"
                + "Message-ID: <" + UUID.randomUUID() + "@orderflow.example>\r\nMIME-Version: 1.0\r\n"
                + "Content-Type: " + contentType + "; charset=UTF-8\r\n\r\n" + body.replace("\n", "\r\n");
        Properties props = new Properties();
        props.put("mail.smtp.host", "127.0.0.1");
        props.put("mail.smtp.port", String.valueOf(port));
        Session session = Session.getInstance(props);
        try (SMTPTransport transport = (SMTPTransport) session.getTransport("smtp")) {
            transport.connect();
            transport.sendMessage(new MimeMessage(session,
                            new ByteArrayInputStream(raw.getBytes(StandardCharsets.UTF_8))),
                    new Address[] {new InternetAddress("purchasing@orderflow.example")});
            return transport.getLastServerResponse().strip();
        } catch (MessagingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void send(String topic, String key, byte[] value) {
        try {
            producer.send(new ProducerRecord<>(topic, key, value)).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] json(Object value) {
        return Json.write(value).getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode post(String path, Object body, int status) {
        return Json.MAPPER.readTree(http.post().uri(path).contentType(MediaType.APPLICATION_JSON).bodyValue(body)
                .exchange().expectStatus().isEqualTo(status).expectBody().returnResult().getResponseBody());
    }

    private static JsonNode get(String path) {
        return Json.MAPPER.readTree(http.get().uri(path).exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody());
    }
}
