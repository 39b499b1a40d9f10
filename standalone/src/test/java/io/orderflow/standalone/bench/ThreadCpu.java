package io.orderflow.standalone.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * CPU time of a process by part, from each thread's {@code /proc/<pid>/task/<tid>/stat} and its name: the broker, the
 * stream threads, the gateway's event loops, the JIT, the collector. Threads that ended between two readings are
 * missing from the second, so a part's share is a lower bound when its threads come and go.
 */
final class ThreadCpu {

    /**
     * A part of the system, its one-word label for the benchmark's over-time lines, and the thread names (as
     * {@code comm} shows them, cut to 15 characters) that are it.
     */
    private record Part(String name, String label, Pattern threads) {
    }

    private static final List<Part> PARTS = List.of(
            new Part("JIT compiler", "JIT", Pattern.compile("C[12] CompilerThre.*")),
            new Part("garbage collector", "GC", Pattern.compile("(GC Thread.*|G1 .*|G. Conc.*|G. Refine.*"
                    + "|G. Service.*|VM Thread|Z(Worker|Driver|Director|Unmapper|Uncommitter|Stat).*)")),
            new Part("Kafka broker", "broker", Pattern.compile("(data-plane-kafk|group-coordinat|TxnMarkerSender"
                    + "|AddPartitionsTo|executor-.*|kafka-\\d+-.*|quorum-.*|raft-.*|ExpirationReape|kafka-scheduler.*"
                    + "|LogDirFailureHa|share-.*|transaction-.*)")),
            // the gateway's web server and the JVM's HTTP clients; a jar before 2026-11-25 named every service's
            // web server loops webflux-http
            new Part("gateway event loops", "loops",
                    Pattern.compile("(gateway-http-.*|webflux-http-.*|reactor-http-.*)")),
            new Part("order-processor stream thread", "processor", Pattern.compile("orderflow-order")),
            new Part("flow-runner stream thread", "runner", Pattern.compile("orderflow-flow-")),
            new Part("Kafka client network threads", "clients",
                    Pattern.compile("(kafka-producer-|kafka-coordinat|kafka-admin-cli|consumer_backgr)")),
            new Part("gateway topic readers", "readers",
                    Pattern.compile("(command-replies|order-updates-r|flows-reader.*|principals-r.*|customers-r.*)")),
            new Part("webhook dispatcher", "dispatcher", Pattern.compile("webhook-.*")),
            new Part("RocksDB", "RocksDB", Pattern.compile("rocksdb:.*")));

    private ThreadCpu() {
    }

    /** Clock ticks (1/100 s) per part, threads that match no part under "other". */
    static Map<String, Long> read(long pid) {
        Map<String, Long> ticks = new LinkedHashMap<>();
        PARTS.forEach(part -> ticks.put(part.name(), 0L));
        ticks.put("other", 0L);
        if (pid <= 0) {
            return ticks;
        }
        try (Stream<Path> tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm")).strip();
                    ticks.merge(partOf(name), ProcStat.cpuTicks(task.resolve("stat")), Long::sum);
                } catch (IOException | RuntimeException gone) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException e) {
            return ticks;
        }
        return ticks;
    }

    private static String label(String part) {
        return PARTS.stream().filter(p -> p.name().equals(part)).map(Part::label).findFirst().orElse(part);
    }

    private static String partOf(String thread) {
        return PARTS.stream().filter(part -> part.threads().matcher(thread).matches()).map(Part::name).findFirst()
                .orElse("other");
    }

    /** Clock ticks each part used between two readings. */
    private static Map<String, Long> used(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> used = new LinkedHashMap<>();
        after.forEach((part, ticks) -> used.put(part, Math.max(0, ticks - before.getOrDefault(part, 0L))));
        return used;
    }

    /** Cores each part kept busy between two readings {@code seconds} apart, the busiest {@code top} first. */
    static String cores(Map<String, Long> before, Map<String, Long> after, double seconds, int top) {
        Map<String, Long> used = used(before, after);
        long total = used.values().stream().mapToLong(Long::longValue).sum();
        return String.format("%.2f cores (%s)", total / 100.0 / seconds, used.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                .map(e -> String.format("%s %.2f", label(e.getKey()), e.getValue() / 100.0 / seconds))
                .collect(Collectors.joining(", ")));
    }

    /** The parts' shares of what was used between two readings, largest first, as one line. */
    static String shares(Map<String, Long> before, Map<String, Long> after, int orders) {
        Map<String, Long> used = used(before, after);
        long total = Math.max(1, used.values().stream().mapToLong(Long::longValue).sum());
        return used.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> String.format("%s %.0f%% (%.2f ms)", e.getKey(), 100.0 * e.getValue() / total,
                        10.0 * e.getValue() / orders))
                .collect(Collectors.joining(", "));
    }
}
