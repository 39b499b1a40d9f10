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
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * The standalone system on its in-process broker, started with {@code CLOCK_CONTROL=true}, {@code TIME_SCALE=1}
 * (waits as long as the flows say) and {@code ORDER_RETENTION=365d} (ended orders outlive the clock's moves). First the walking skeleton as a new user drives it over HTTP (an order started,
 * completed, read back). Then moving the service clock over the API makes what is due by it happen within seconds, in
 * the processor (an approval escalates), the runner (a subscription's 30-day sleep ends) and the daily replenishment;
 * and a restart on the same data keeps the skeleton's order and the time. The tests run in order, since the clock only
 * goes forward, and one system start and restart serves both the skeleton and the clock.
 */
@OwnSystem
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClockControlEndToEndTest {

    /** How soon a change's effect must show: the next sweep is at most a second away. */
    private static final Duration PROMPTLY = Duration.ofSeconds(5);
    /** Beyond ASCII, to show that the order's view goes out as UTF-8. */
    private static final String LINE_NAME = "T-shirt « été » 👕";
    private static final Map<String, Object> STOREFRONT_ORDER = Map.of(
            "flowId", "storefront_order",
            "input", Map.of(
                    "type", "storefront_order",
                    "customerId", "cus_e2e",
                    "currency", "USD",
                    "lines", List.of(Map.of("sku", "TSHIRT-RED-M", "name", LINE_NAME, "qty", 2, "unitPrice", 19.5)),
                    "meta", Map.of("shipTo", "1 Main Street, Springfield")));

    private static Path dataDir;
    private static StandaloneSystem system;
    private static WebTestClient http;
    /** The skeleton's completed order, read again after the restart. */
    private static String skeletonOrder;

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
        // retention runs on the service clock: a year keeps the skeleton's order past the clock's 32 days and more
        System.setProperty("ORDER_RETENTION", "365d");
        try {
            return StandaloneSystem.start(new StandaloneSettings(0, dataDir, Optional.empty(), 0));
        } finally {
            System.clearProperty("CLOCK_CONTROL");
            System.clearProperty("TIME_SCALE");
            System.clearProperty("ORDER_RETENTION");
        }
    }

    @Test
    @Order(0)
    void the_walking_skeleton_an_order_started_over_http_completes_and_reads_back() {
        http.get().uri("/health").exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.ok").isEqualTo(true).jsonPath("$.service").isEqualTo("gateway");

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> http.get().uri("/api/v1/flows").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.flows.length()").isEqualTo(5)
                .jsonPath("$.flows[?(@.id == 'storefront_order')].publishedVersion").isEqualTo(1));

        String orderId = (String) http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(STOREFRONT_ORDER).exchange()
                .expectStatus().isEqualTo(HttpStatus.CREATED)
                .expectHeader().exists("Location")
                .expectBody(Map.class).returnResult().getResponseBody().get("orderId");
        assertThat(orderId).startsWith("ord_");

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> http.get().uri("/api/v1/orders/" + orderId)
                .exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("completed"));

        http.get().uri("/api/v1/orders/" + orderId).exchange()
                .expectBody()
                .jsonPath("$.orderId").isEqualTo(orderId)
                .jsonPath("$.flow.flowId").isEqualTo("storefront_order")
                .jsonPath("$.order.total").isNumber()
                .jsonPath("$.order.lines[0].name").isEqualTo(LINE_NAME)
                .jsonPath("$.nodes").isNotEmpty()
                .jsonPath("$.edges").isNotEmpty()
                .jsonPath("$.timeline").isNotEmpty()
                .jsonPath("$.generation").isEqualTo(1);

        assertTimelineReadsInTheOrderThingsHappened(orderId);

        http.get().uri("/api/v1/orders/ord_does_not_exist").exchange().expectStatus().isNotFound();
        skeletonOrder = orderId;
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
    void a_restart_on_the_same_data_keeps_the_orders_and_the_time_and_a_reset_goes_back_to_real_time() {
        assertThat(skeletonOrder).as("the skeleton's order (the first test)").isNotNull();
        long offset = clock().get("offsetMillis").asLong();
        assertThat(offset).isGreaterThan(Duration.ofDays(32).toMillis());

        system.close();
        system = startSystem();
        http = SharedStandalone.client(system);
        assertThat(clock().get("offsetMillis").asLong()).isEqualTo(offset);

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> http.get().uri("/api/v1/orders/" + skeletonOrder)
                .exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("completed"));
        // money read back from the stores is the two-decimal amount it was, not a double (39.0)
        String body = http.get().uri("/api/v1/orders/" + skeletonOrder).exchange()
                .expectBody(String.class).returnResult().getResponseBody();
        assertThat(body).contains("\"unitPrice\":19.50", "\"subtotal\":39.00", "\"tax\":3.12",
                "\"total\":42.12");

        JsonNode reset = json(http.delete().uri("/api/v1/clock").exchange().expectStatus().isOk());
        assertThat(reset.get("offset").asString()).isEqualTo("PT0S");
        assertThat(Instant.parse(reset.get("now").asString()))
                .isBetween(Instant.now().minusSeconds(5), Instant.now().plusSeconds(5));
        JsonNode audit = json(http.get().uri("/api/v1/team/audit?limit=10").exchange().expectStatus().isOk());
        assertThat(audit.get("entries").valueStream().map(entry -> entry.get("action").asString()))
                .startsWith("clock.reset", "clock.pinned", "clock.advanced", "clock.advanced");
    }

    /**
     * Started, running, then each node in turn and the end: "Order running" comes before the work it started, and every
     * entry is at the time it happened.
     */
    @SuppressWarnings("unchecked")
    private static void assertTimelineReadsInTheOrderThingsHappened(String orderId) {
        Map<String, Object> state = http.get().uri("/api/v1/orders/" + orderId).exchange()
                .expectBody(Map.class).returnResult().getResponseBody();
        List<Map<String, Object>> timeline = (List<Map<String, Object>>) state.get("timeline");
        List<String> messages = timeline.stream().map(entry -> (String) entry.get("message")).toList();
        assertThat(messages).satisfiesExactly(
                m -> assertThat(m).startsWith("Started on flow"),
                m -> assertThat(m).isEqualTo("Order running"),
                m -> assertThat(m).startsWith("Price order " + orderId + ":"),
                m -> assertThat(m).startsWith("Sales tax:"),
                m -> assertThat(m).startsWith("Charge card:"),
                m -> assertThat(m).startsWith("Reserve stock:"),
                m -> assertThat(m).startsWith("Ship order " + orderId + ":"),
                m -> assertThat(m).startsWith("Send receipt:"),
                m -> assertThat(m).startsWith("Completed:"),
                m -> assertThat(m).isEqualTo("Order completed"));
        List<Long> times = timeline.stream().map(entry -> ((Number) entry.get("at")).longValue()).toList();
        assertThat(times).isSorted();
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
