package io.orderflow.standalone.bench;

import io.orderflow.schemas.json.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * One of the benchmark's webhook subscriptions ({@link Subscribers}): a {@link BenchReceiver} that answers as its
 * {@link Kind} says, subscribed through the public API before the warm-up, unsubscribed at the end.
 */
final class Subscriber implements AutoCloseable {

    /** What a subscriber asks for and how its receiver answers. */
    enum Kind {
        FAST("fast", List.of("*"), 200, Duration.ZERO, "every event, 200 at once"),
        SLOW("slow", List.of("*"), 200, Duration.ofSeconds(2), "every event, 200 after 2 s"),
        FAILING("failing", List.of("*"), 500, Duration.ZERO, "every event, 500 at once"),
        COMPLETED("completed-only", List.of("order.completed"), 200, Duration.ZERO, "order.completed only, 200 at once");

        final String label;
        final List<String> events;
        final int status;
        final Duration answerAfter;
        final String description;

        Kind(String label, List<String> events, int status, Duration answerAfter, String description) {
            this.label = label;
            this.events = events;
            this.status = status;
            this.answerAfter = answerAfter;
            this.description = description;
        }
    }

    private final BenchHttp http;
    private final Kind kind;
    private final BenchReceiver receiver;
    private final String subscriptionId;

    private Subscriber(BenchHttp http, Kind kind, BenchReceiver receiver, String subscriptionId) {
        this.http = http;
        this.kind = kind;
        this.receiver = receiver;
        this.subscriptionId = subscriptionId;
    }

    static Subscriber subscribe(BenchHttp http, Kind kind) {
        // the failing one's request times give the spacing of its retries
        BenchReceiver receiver = new BenchReceiver("bench-receiver-" + kind.label, kind.status, kind.answerAfter,
                kind == Kind.FAILING);
        BenchHttp.Response created = http.post("/api/v1/webhook-subscriptions",
                Json.write(Map.of("url", receiver.url(), "events", kind.events)));
        if (created.status() != 201) {
            receiver.close();
            throw new IllegalStateException("Subscribing answered " + created.status() + " " + created.body());
        }
        JsonNode answer = Json.MAPPER.readTree(created.body());
        receiver.verifyWith(answer.get("secret").asString());
        System.out.printf("subscriber %s: %s, %s%n", kind.label, receiver.url(), kind.description);
        return new Subscriber(http, kind, receiver, answer.get("subscription").get("id").asString());
    }

    Kind kind() {
        return kind;
    }

    BenchReceiver receiver() {
        return receiver;
    }

    @Override
    public void close() {
        try {
            BenchHttp.Response deleted = http.delete("/api/v1/webhook-subscriptions/" + subscriptionId);
            if (deleted.status() != 200) {
                System.out.printf("subscriber %s: unsubscribing answered %d%n", kind.label, deleted.status());
            }
        } finally {
            receiver.close();
        }
    }
}
