package io.orderflow.standalone.bench;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Where an order's time from POST to {@code completed} goes ({@code --hops=true}): a {@code read_uncommitted} reader of
 * the topics on an order's path notes when each of its records first appears, that is about when the broker appended
 * it, before the transaction that wrote it commits. Laid beside the benchmark's own times (POST sent, POST answered,
 * {@code completed} seen on the committed topic) that splits an order into its hops. It fetches every record of five
 * topics, which a real client would not do, so it is off by default.
 */
final class Hops implements AutoCloseable {

    /** The stages, in an order's sequence: the benchmark's own and the appends the reader sees. */
    private enum Stage { SENT, COMMAND, REPLY, TASK, REPORT, ENDED_APPENDED, ANSWERED, ENDED_SEEN }

    /** One hop: its name, a short label for the per-window table, and the stages it spans. */
    private record Hop(String name, String label, Stage from, Stage to) {
    }

    private static final List<Hop> HOPS = List.of(
            new Hop("POST sent -> command appended (gateway, producer)", "gateway", Stage.SENT, Stage.COMMAND),
            new Hop("command -> reply and node task appended (processor)", "processor", Stage.COMMAND, Stage.REPLY),
            new Hop("reply appended -> POST answered (commit, reply reader)", "reply", Stage.REPLY, Stage.ANSWERED),
            new Hop("node task -> run report appended (commit, runner)", "runner", Stage.TASK, Stage.REPORT),
            new Hop("run report -> completed appended (commit, processor)", "processor", Stage.REPORT,
                    Stage.ENDED_APPENDED),
            new Hop("completed appended -> seen committed (commit, reader)", "seen", Stage.ENDED_APPENDED,
                    Stage.ENDED_SEEN));

    private final Map<String, long[]> times = new ConcurrentHashMap<>();
    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread thread;
    private volatile boolean running = true;

    Hops(String bootstrapServers) {
        consumer = new KafkaConsumer<>(LoadBench.consumerConfig(bootstrapServers, "read_uncommitted"),
                new StringDeserializer(), new ByteArrayDeserializer());
        LoadBench.readFromEnd(consumer, List.of(Topics.ORDER_COMMANDS.name(), Topics.COMMAND_REPLIES.name(),
                Topics.NODE_TASKS.name(), Topics.RUN_REPORTS.name(), Topics.ORDER_UPDATES.name()));
        thread = Thread.ofPlatform().name("bench-hops").daemon().start(this::poll);
    }

    /** The benchmark's own times of one order, {@link System#nanoTime()}. */
    void order(String orderId, long sent, long answered, long endedSeen) {
        long[] at = at(orderId);
        at[Stage.SENT.ordinal()] = sent;
        at[Stage.ANSWERED.ordinal()] = answered;
        at[Stage.ENDED_SEEN.ordinal()] = endedSeen;
    }

    private long[] at(String orderId) {
        return times.computeIfAbsent(orderId, ignored -> new long[Stage.values().length]);
    }

    private void poll() {
        while (running) {
            for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                long now = System.nanoTime();
                if (record.value() == null) {
                    continue;
                }
                switch (record.topic()) {
                    case "order-commands" -> first(record.key(), Stage.COMMAND, now);
                    case "command-replies" -> first(Json.MAPPER.readTree(record.value()).path("orderId").asString(),
                            Stage.REPLY, now);
                    case "node-tasks" -> first(record.key(), Stage.TASK, now);
                    case "run-reports" -> first(record.key(), Stage.REPORT, now);
                    default -> {
                        if (Json.MAPPER.readTree(record.value()).path("status").asString().equals("completed")) {
                            first(record.key(), Stage.ENDED_APPENDED, now);
                        }
                    }
                }
            }
        }
        consumer.close();
    }

    private void first(String orderId, Stage stage, long now) {
        long[] at = at(orderId);
        if (at[stage.ordinal()] == 0) {
            at[stage.ordinal()] = now;
        }
    }

    /**
     * Each hop's p50 and p99 over the given orders, and the same hops for the slowest 1% of them by POST ->
     * completed: which hop the tail sits in.
     */
    List<String> report(List<String> orderIds) {
        List<long[]> complete = seenEverywhere(orderIds);
        List<long[]> slowest = complete.stream()
                .sorted(Comparator.comparingLong(Hops::endToEnd).reversed())
                .limit(Math.max(1, complete.size() / 100)).toList();
        List<String> lines = new ArrayList<>();
        lines.add(String.format("%-56s %-19s %s", "(" + complete.size() + " orders seen at every stage)",
                "all: p50 / p99", "slowest 1% (" + slowest.size() + "): p50 / p99"));
        for (Hop hop : HOPS) {
            lines.add(String.format("%-56s %6.1f / %6.1f ms   %6.1f / %6.1f ms", hop.name(),
                    percentile(complete, hop, 0.50), percentile(complete, hop, 0.99),
                    percentile(slowest, hop, 0.50), percentile(slowest, hop, 0.99)));
        }
        return lines;
    }

    /**
     * Each hop's p99 over the orders sent in each window of {@code windowNanos} after {@code started}: a slow window
     * shows which service held its orders.
     */
    List<String> byWindow(List<String> orderIds, long started, long windowNanos) {
        Map<Long, List<long[]>> windows = new TreeMap<>(seenEverywhere(orderIds).stream()
                .collect(Collectors.groupingBy(at -> (at[Stage.SENT.ordinal()] - started) / windowNanos)));
        List<String> lines = new ArrayList<>();
        lines.add("p99 by window:  " + HOPS.stream().map(hop -> String.format("%9s", hop.label()))
                .collect(Collectors.joining(" ")) + " ms");
        windows.forEach((w, orders) -> lines.add(String.format("  +%3d s        %s", w * windowNanos / 1_000_000_000L,
                HOPS.stream().map(hop -> String.format("%9.1f", percentile(orders, hop, 0.99)))
                        .collect(Collectors.joining(" ")))));
        return lines;
    }

    private static long endToEnd(long[] at) {
        return at[Stage.ENDED_SEEN.ordinal()] - at[Stage.SENT.ordinal()];
    }

    /** The stage times of those of the orders that every stage saw. */
    private List<long[]> seenEverywhere(List<String> orderIds) {
        return orderIds.stream().map(times::get)
                .filter(at -> at != null && Arrays.stream(at).allMatch(t -> t != 0)).toList();
    }

    private static double percentile(List<long[]> orders, Hop hop, double quantile) {
        long[] sorted = orders.stream().mapToLong(at -> at[hop.to().ordinal()] - at[hop.from().ordinal()]).sorted()
                .toArray();
        return sorted.length == 0 ? Double.NaN : LoadBench.at(sorted, quantile);
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join();
    }
}
