package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.json.Json;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * The standalone system started with {@code CLOCK_CONTROL=true} and {@code TIME_SCALE=1} (waits as long as the flows
 * say): moving the service clock over the API makes what is due by it happen within seconds, in the processor (an
 * approval escalates), the runner (a subscription's 30-day sleep ends) and the daily replenishment, and a restart on
 * the same data keeps the time. The tests run in order, since the clock only goes forward.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClockControlEndToEndTest {

    /** How soon a change's effect must show: the next sweep is at most a second away. */
    private static final Duration PROMPTLY = Duration.ofSeconds(5);

    private static Path dataDir;
    private static StandaloneSystem system;
    private static WebTestClient http;

    @BeforeAll
    static void start() {
        dataDir = TestKafka.uniqueStateDir("clock-control-e2e");
        system = startSystem();
        http = SharedStandalone.client(system);
    }

    @AfterAll
    static void stop() {
        if (system != null) {
            system.close();
        }
    }

    private static StandaloneSystem startSystem() {
        // the services read their settings from the environment or, as here, from system properties
        System.setProperty("CLOCK_CONTROL", "true");
        System.setProperty("TIME_SCALE", "1");
        try {
            return StandaloneSystem.start(new StandaloneSettings(0, dataDir, Optional.empty(), 0));
        } finally {
            System.clearProperty("CLOCK_CONTROL");
            System.clearProperty("TIME_SCALE");
        }
    }

    @Test
    @Order(1)
    void an_approval_escalates_as_soon_as_the_clock_passes_its_deadline() {
        JsonNode before = clock();
        assertThat(before.get("offset").asString()).isEqualTo("PT0S");

        String orderId = start("purchase_request", Map.of("type", "purchase_request", "customerId", "dept_clock",
                "lines", List.of(Map.of("sku", "LAPTOP-14", "qty", 2)), "meta", Map.of("shipTo", "HQ, 2nd floor")));
        JsonNode waiting = await().atMost(Duration.ofSeconds(60)).until(() -> read(orderId),
                order -> waitOn(order, "approval") != null);
        JsonNode approval = waitOn(waiting, "approval");
        long deadline = approval.get("deadline").asLong();
        assertThat(deadline - approval.get("since").asLong()).as("two days: TIME_SCALE is 1")
                .isEqualTo(Duration.ofDays(2).toMillis());

        JsonNode moved = json(http.post().uri("/api/v1/clock").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"advanceBy\": \"P2DT1M\"}").exchange().expectStatus().isOk());
        assertThat(moved.get("nowMillis").asLong()).isGreaterThan(deadline);
        long changed = System.nanoTime();

        JsonNode escalated = await().atMost(PROMPTLY).until(() -> read(orderId),
                order -> waitOn(order, "director") != null);
        Duration took = Duration.ofNanos(System.nanoTime() - changed);
        assertThat(escalated.get("status").asString()).isEqualTo("waiting");
        assertThat(escalated.get("nodes").get("approval").get("branches").valueStream().map(JsonNode::asString))
                .containsExactly("escalated");
        JsonNode close = escalated.get("timeline").valueStream()
                .filter(entry -> entry.get("kind").asString().equals("close:approval")).findFirst().orElseThrow();
        assertThat(close.get("message").asString()).endsWith("escalated");
        assertThat(close.get("at").asLong()).as("recorded at the service time").isGreaterThanOrEqualTo(deadline);
        JsonNode director = waitOn(escalated, "director");
        assertThat(director.get("since").asLong()).isGreaterThanOrEqualTo(deadline);
        assertThat(director.get("deadline").asLong() - director.get("since").asLong())
                .isEqualTo(Duration.ofDays(1).toMillis());
        assertThat(json(http.get().uri("/api/v1/approvals?status=escalated").exchange().expectStatus().isOk())
                .get("approvals").valueStream().map(row -> row.get("orderId").asString())).contains(orderId);
        System.out.printf("Clock control: the escalation showed %d ms after the clock moved%n", took.toMillis());
    }

    @Test
    @Order(2)
    void a_subscription_renews_once_the_clock_passes_its_30_day_sleep() {
        String orderId = start("subscription", Map.of("type", "subscription", "customerId", "cus_clock",
                "lines", List.of(Map.of("sku", "SAAS-SEAT", "qty", 5))));
        await().atMost(Duration.ofSeconds(60)).until(() -> read(orderId),
                order -> charges(order) == 1 && order.get("nodes").get("invoice").get("status").asString()
                        .equals("succeeded"));

        post("{\"advanceBy\": \"P30D\"}");

        JsonNode renewed = await().atMost(PROMPTLY).until(() -> read(orderId), order -> charges(order) == 2);
        assertThat(renewed.get("vars").get("renewals").asInt()).isEqualTo(1);
    }

    @Test
    @Order(3)
    void the_replenishment_runs_when_the_clock_is_set_to_06_00() {
        Instant now = Instant.parse(clock().get("now").asString());
        LocalDate day = now.atZone(ZoneOffset.UTC).toLocalDate().plusDays(1);
        Instant sixOClock = day.atTime(6, 0).toInstant(ZoneOffset.UTC);
        String orderId = "ord_reorder_" + day.format(DateTimeFormatter.BASIC_ISO_DATE);
        http.get().uri("/api/v1/orders/" + orderId).exchange().expectStatus().isNotFound();

        JsonNode pinned = post("{\"pinAt\": \"" + sixOClock + "\"}");
        assertThat(Instant.parse(pinned.get("now").asString())).as("the clock runs on from where it was set")
                .isBetween(sixOClock, sixOClock.plusSeconds(5));

        JsonNode reorder = await().atMost(PROMPTLY).until(() -> http.get().uri("/api/v1/orders/" + orderId)
                .exchange().returnResult(String.class).getStatus().value() == 200 ? read(orderId) : null,
                order -> order != null);
        assertThat(reorder.get("order").get("type").asString()).isEqualTo("reorder");
        assertThat(reorder.get("order").get("customerId").asString()).isEqualTo("warehouse");
    }

    @Test
    @Order(4)
    void a_restart_on_the_same_data_keeps_the_time_and_a_reset_goes_back_to_real_time() {
        long offset = clock().get("offsetMillis").asLong();
        assertThat(offset).isGreaterThan(Duration.ofDays(32).toMillis());

        system.close();
        system = startSystem();
        http = SharedStandalone.client(system);
        assertThat(clock().get("offsetMillis").asLong()).isEqualTo(offset);

        JsonNode reset = json(http.delete().uri("/api/v1/clock").exchange().expectStatus().isOk());
        assertThat(reset.get("offset").asString()).isEqualTo("PT0S");
        assertThat(Instant.parse(reset.get("now").asString()))
                .isBetween(Instant.now().minusSeconds(5), Instant.now().plusSeconds(5));
        JsonNode audit = json(http.get().uri("/api/v1/team/audit?limit=10").exchange().expectStatus().isOk());
        assertThat(audit.get("entries").valueStream().map(entry -> entry.get("action").asString()))
                .startsWith("clock.reset", "clock.pinned", "clock.advanced", "clock.advanced");
    }

    private static String start(String flowId, Map<String, Object> input) {
        return json(http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", flowId, "input", input)).exchange().expectStatus().isCreated())
                .get("orderId").asString();
    }

    private static JsonNode post(String body) {
        return json(http.post().uri("/api/v1/clock").contentType(MediaType.APPLICATION_JSON).bodyValue(body)
                .exchange().expectStatus().isOk());
    }

    private static JsonNode clock() {
        return json(http.get().uri("/api/v1/clock").exchange().expectStatus().isOk());
    }

    private static JsonNode read(String orderId) {
        return json(http.get().uri("/api/v1/orders/" + orderId).exchange().expectStatus().isOk());
    }

    private static JsonNode waitOn(JsonNode order, String nodeId) {
        return order.get("waits").valueStream().filter(wait -> wait.get("nodeId").asString().equals(nodeId))
                .findFirst().orElse(null);
    }

    private static int charges(JsonNode order) {
        JsonNode runs = order.get("nodes").get("charge").get("runs");
        return runs == null ? 0 : runs.size();
    }

    private static JsonNode json(WebTestClient.ResponseSpec response) {
        return Json.MAPPER.readTree(response.expectBody().returnResult().getResponseBody());
    }
}
