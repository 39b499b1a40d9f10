package io.orderflow.standalone.bench;

import io.orderflow.schemas.json.Json;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * The benchmark's webhook subscription ({@code --subscriber=true}): a {@link BenchReceiver} subscribed to every event
 * through the public API before the warm-up, unsubscribed at the end. After the measured run it waits for the
 * deliveries to stop arriving and reports those of the measured orders.
 */
final class Subscriber implements AutoCloseable {

    /** How long no new delivery may arrive before the deliveries count as drained. */
    private static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** The longest wait for the deliveries after the run. */
    private static final long DRAIN_NANOS = TimeUnit.MINUTES.toNanos(3);
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** When the wait after the run ended, and whether the deliveries had stopped arriving by then. */
    record Drained(long at, boolean quiet) {
    }

    private final BenchHttp http;
    private final BenchReceiver receiver;
    private final String subscriptionId;

    private Subscriber(BenchHttp http, BenchReceiver receiver, String subscriptionId) {
        this.http = http;
        this.receiver = receiver;
        this.subscriptionId = subscriptionId;
    }

    static Subscriber subscribe(BenchHttp http) {
        BenchReceiver receiver = new BenchReceiver();
        BenchHttp.Response created = http.post("/api/v1/webhook-subscriptions",
                Json.write(Map.of("url", receiver.url(), "events", List.of("*"))));
        if (created.status() != 201) {
            receiver.close();
            throw new IllegalStateException("Subscribing answered " + created.status() + " " + created.body());
        }
        JsonNode answer = Json.MAPPER.readTree(created.body());
        receiver.verifyWith(answer.get("secret").asString());
        System.out.printf("subscriber: %s, every event%n", receiver.url());
        return new Subscriber(http, receiver, answer.get("subscription").get("id").asString());
    }

    /** Waits until no delivery has arrived for 5 s (at most 3 minutes). */
    Drained drain(int orders) throws InterruptedException {
        long start = System.nanoTime();
        long count = receiver.requests();
        long changed = start;
        while (System.nanoTime() - changed < QUIET_NANOS) {
            if (System.nanoTime() - start > DRAIN_NANOS) {
                return new Drained(System.nanoTime(), false);
            }
            Thread.sleep(200);
            long now = receiver.requests();
            if (now != count) {
                count = now;
                changed = System.nanoTime();
            }
        }
        System.out.printf("subscriber: %d requests received; %d orders measured%n", count, orders);
        return new Drained(System.nanoTime(), true);
    }

    /**
     * The deliveries of the measured orders: how many, how fast, how late after their event, duplicates, and when
     * the last arrived after the last order's answer and end ({@code System.nanoTime} values of the run).
     */
    List<String> report(List<String> measuredIds, long started, long lastAccepted, long ended, Drained drained) {
        Set<String> ids;
        synchronized (measuredIds) {
            ids = new HashSet<>(measuredIds);
        }
        List<BenchReceiver.Receipt> receipts = receiver.receiptsOf(ids);
        List<String> lines = new ArrayList<>();
        lines.add("webhook deliveries (one subscriber to every event, a loopback receiver answering 200 at once):");
        if (receipts.isEmpty()) {
            lines.add("  none of the measured orders' deliveries arrived");
            return lines;
        }
        long last = receipts.stream().mapToLong(BenchReceiver.Receipt::receivedNanos).max().orElseThrow();
        long first = receipts.stream().mapToLong(BenchReceiver.Receipt::receivedNanos).min().orElseThrow();
        double seconds = (last - started) / 1e9;
        Map<Long, Integer> windows = new TreeMap<>();
        receipts.forEach(r -> windows.merge((r.receivedNanos() - started) / WINDOW_NANOS, 1, Integer::sum));
        int busiest = windows.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        lines.add(String.format("  delivered: %d for %d orders (%.2f each) in %.1f s from the run's start = %.0f"
                        + " deliveries/s; first to last %.1f s; busiest 5 s window %.0f/s", receipts.size(),
                ids.size(), (double) receipts.size() / ids.size(), seconds, receipts.size() / seconds,
                (last - first) / 1e9, busiest / (WINDOW_NANOS / 1e9)));
        long[] lags = receipts.stream().mapToLong(BenchReceiver.Receipt::lagMillis).sorted().toArray();
        lines.add(String.format("  event -> received: p50=%d ms p99=%d ms max=%d ms", lags[(lags.length - 1) / 2],
                lags[(int) Math.min(lags.length - 1, Math.ceil(0.99 * lags.length) - 1)], lags[lags.length - 1]));
        lines.add(String.format("  last delivery %.1f s after the last order's answer (POST), %.1f s after the last"
                + " order ended%s", (last - lastAccepted) / 1e9, (last - ended) / 1e9,
                drained.quiet() ? "" : "; still arriving when the wait ended"));
        lines.add(String.format("  duplicates: %d (of %d requests, the warm-up's included); bad signatures: %d of"
                        + " every 100th checked; unreadable: %d", receiver.duplicates(), receiver.requests(),
                receiver.badSignatures(), receiver.unreadable()));
        lines.add("  per 5 s window from the run's start: " + windows.values());
        return lines;
    }

    @Override
    public void close() {
        try {
            BenchHttp.Response deleted = http.delete("/api/v1/webhook-subscriptions/" + subscriptionId);
            if (deleted.status() != 200) {
                System.out.println("subscriber: unsubscribing answered " + deleted.status());
            }
        } finally {
            receiver.close();
        }
    }
}
