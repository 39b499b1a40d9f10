package io.orderflow.standalone;

import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import tools.jackson.databind.JsonNode;

/**
 * The order socket's push latency, by hand only: it measures and prints, and asserts nothing about speed.
 *
 * <pre>
 * ./mvnw -B -o -pl standalone -am verify -Dtest=SocketPushLatencyBenchmark -Dorderflow.bench=true \
 *     -Dsurefire.failIfNoSpecifiedTests=false [-Dorderflow.bench.decisions=200]
 * </pre>
 *
 * It starts the standalone system in this JVM (in-process broker, open deployment, {@code TIME_SCALE=1} so no
 * approval escalates while it runs), starts {@code decisions} purchase requests that wait for a manager's approval,
 * then, one order at a time, opens two sockets on the order: the deciding client calls {@code decide} and the watching
 * client measures from just before the call is sent to the first state push in which the approval wait is gone. That
 * is the whole path a second browser sees: socket call, command on Kafka, the agent's decision, the
 * {@code order-updates} notice, the gateway's state read, the push. It prints p50/p90/p99/max of that and of the
 * decide call's own reply.
 */
@EnabledIfSystemProperty(named = "orderflow.bench", matches = "true")
class SocketPushLatencyBenchmark {

    @Test
    void decisionToOtherClientsPush() throws Exception {
        int decisions = Integer.getInteger("orderflow.bench.decisions", 200);
        System.setProperty("TIME_SCALE", "1");
        StandaloneSystem system = StandaloneSystem.start(new StandaloneSettings(0,
                TestKafka.uniqueStateDir("socket-benchmark"), Optional.empty(), 0));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String base = "http://localhost:" + system.gatewayPort();
        try {
            List<String> orders = new ArrayList<>();
            for (int i = 0; i < decisions + 20; i++) {
                orders.add(start(http, base, i));
            }
            for (String order : orders) {
                await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(50))
                        .until(() -> waitingForApproval(read(http, base, order)));
            }
            List<Long> pushes = new ArrayList<>();
            List<Long> replies = new ArrayList<>();
            for (int i = 0; i < orders.size(); i++) {
                long[] sample = measure(http, base, orders.get(i));
                if (i >= 20) { // the first 20 warm up: JIT, connections
                    pushes.add(sample[0]);
                    replies.add(sample[1]);
                }
            }
            System.out.printf("%nSocket push latency over %d decisions (decide sent -> other client's state push): %s%n",
                    pushes.size(), percentiles(pushes));
            System.out.printf("decide call -> its reply on the deciding socket: %s%n%n", percentiles(replies));
        } finally {
            system.close();
            System.clearProperty("TIME_SCALE");
        }
    }

    /** {push nanos, reply nanos} for one decision on {@code order}. */
    private static long[] measure(HttpClient http, String base, String order) throws Exception {
        try (OrderSocket watcher = new OrderSocket(http, base, order);
             OrderSocket decider = new OrderSocket(http, base, order)) {
            watcher.next(m -> m.path("type").asString("").equals("state"));
            decider.next(m -> m.path("type").asString("").equals("state"));
            long sent = System.nanoTime();
            decider.send("{\"id\": 1, \"method\": \"decide\", \"params\": {\"nodeId\": \"approval\", "
                    + "\"decision\": \"approved\", \"note\": \"bench\"}}");
            OrderSocket.Received pushed = watcher.next(m -> m.path("type").asString("").equals("state")
                    && !waitingForApproval(m.get("state")));
            OrderSocket.Received reply = decider.next(m -> m.has("id"));
            if (!reply.message().has("result")) {
                throw new AssertionError("decide failed on " + order + ": " + reply.message());
            }
            return new long[] {pushed.at() - sent, reply.at() - sent};
        }
    }

    private static boolean waitingForApproval(JsonNode state) {
        for (JsonNode wait : state.path("waits")) {
            if ("approval".equals(wait.path("nodeId").asString(""))) {
                return true;
            }
        }
        return false;
    }

    private static String start(HttpClient http, String base, int n) throws Exception {
        String body = "{\"flowId\": \"purchase_request\", \"input\": {\"type\": \"purchase_request\", "
                + "\"customerId\": \"cus_bench_" + n + "\", \"currency\": \"USD\", "
                + "\"lines\": [{\"sku\": \"LAPTOP-14\", \"qty\": 2}]}}";
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/orders"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 201) {
            throw new AssertionError("start answered " + response.statusCode() + ": " + response.body());
        }
        return Json.MAPPER.readTree(response.body()).get("orderId").asString();
    }

    private static JsonNode read(HttpClient http, String base, String order) throws Exception {
        return Json.MAPPER.readTree(http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/orders/" + order))
                .GET().build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    private static String percentiles(List<Long> samples) {
        long[] sorted = samples.stream().mapToLong(Long::longValue).sorted().toArray();
        return String.format("p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms (n=%d)", at(sorted, 0.50),
                at(sorted, 0.90), at(sorted, 0.99), sorted[sorted.length - 1] / 1e6, sorted.length);
    }

    private static double at(long[] sorted, double quantile) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1)] / 1e6;
    }
}
