package io.orderflow.standalone.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark's options, {@code --name=value} (Maven passes {@code -Dbench.name=value} on as these); an empty value
 * means the default.
 *
 * @param orders        measured orders (after the warm-up)
 * @param warmup        orders before the measurement: JIT, connections, partition leaders. The JIT is what takes
 *                      long: one JVM holds the broker, Kafka Streams, Spring and Netty, and the C2 compiler threads
 *                      still used a sixth of the CPU in the second minute (orders 20,000 to 50,000)
 * @param concurrency   most orders in flight (POST sent, end not yet seen on order-updates)
 * @param rate          orders started per second; 0 starts them as fast as the concurrency allows
 * @param flow          the flow to start (its order type is the flow id, as for the seeded flows)
 * @param getRate       GET /api/v1/orders/:id per second during the measurement, of recent orders
 * @param eosRecords    records for the Kafka exactly-once pass-through measurement; 0 skips it
 * @param jar           the standalone exec jar to start (without {@code url})
 * @param jvmArgs       the started system's JVM options, space-separated
 * @param url           a running system's gateway instead of starting one
 * @param kafka         that system's Kafka bootstrap servers
 * @param pid           that system's process id, for its RSS
 * @param port          gateway port of the started system
 * @param kafkaPort     broker port of the started system
 * @param dataDir       data directory of the started system; empty: a new one under /tmp, deleted after
 * @param readsOut      a file for every sampled read of the measured run, one line each: its start in milliseconds
 *                      since the epoch and its time in milliseconds, to lay beside a GC or safepoint log written with
 *                      {@code -Xlog:...:timemillis}; empty: none
 * @param hops          whether to split POST -> completed into its hops ({@link Hops}), which reads every record of
 *                      the order path's topics
 * @param settleSeconds with a rate: seconds at that rate between the warm-up and the measured run, so that the JIT
 *                      has compiled the paced run's code before it is measured; 0: none
 * @param subscribers   webhook subscribers on loopback ({@link Subscribers}), subscribed before the warm-up, whose
 *                      deliveries are reported: 0; 1, a fast one to every event (also {@code --subscriber=true}); or
 *                      4, that one, one answering after 2 s, one answering 500 and one to {@code order.completed}
 *                      only
 * @param thenRate      with {@code thenSeconds}: orders started per second after the measured run, for that long,
 *                      and reported on their own (an overload run: is the rate back once the offered load falls?)
 * @param thenSeconds   seconds of that last phase; 0: none
 */
record BenchOptions(int orders, int warmup, int concurrency, double rate, String flow, int getRate, int eosRecords,
                    String jar, String jvmArgs, String url, String kafka, long pid, int port, int kafkaPort,
                    String dataDir, int orderTimeoutSeconds, String readsOut, boolean hops, int settleSeconds,
                    int subscribers, double thenRate, int thenSeconds) {

    static BenchOptions parse(String[] args) {
        Map<String, String> given = new LinkedHashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--") || !arg.contains("=")) {
                throw new IllegalArgumentException("Options are --name=value, not " + arg);
            }
            String value = arg.substring(arg.indexOf('=') + 1).strip();
            if (!value.isEmpty()) {
                given.put(arg.substring(2, arg.indexOf('=')), value);
            }
        }
        List<String> known = List.of("orders", "warmup", "concurrency", "rate", "flow", "get-rate", "eos-records",
                "jar", "jvm-args", "url", "kafka", "pid", "port", "kafka-port", "data-dir", "order-timeout",
                "reads-out", "hops", "settle", "subscriber", "subscribers", "then-rate", "then-seconds");
        given.keySet().stream().filter(k -> !known.contains(k)).findFirst().ifPresent(k -> {
            throw new IllegalArgumentException("Unknown option --" + k + " (known: " + known + ")");
        });
        return new BenchOptions(
                Integer.parseInt(given.getOrDefault("orders", "30000")),
                Integer.parseInt(given.getOrDefault("warmup", "30000")),
                Integer.parseInt(given.getOrDefault("concurrency", "128")),
                Double.parseDouble(given.getOrDefault("rate", "0")),
                given.getOrDefault("flow", "storefront_order"),
                Integer.parseInt(given.getOrDefault("get-rate", "20")),
                Integer.parseInt(given.getOrDefault("eos-records", "200000")),
                given.getOrDefault("jar", "standalone/target/standalone-0.1.0-SNAPSHOT-exec.jar"),
                // the bench profile passes the run command's settings (standalone.jvmArgs); none: the JVM's own
                given.getOrDefault("jvm-args", ""),
                given.get("url"),
                given.getOrDefault("kafka", "localhost:9092"),
                Long.parseLong(given.getOrDefault("pid", "-1")),
                Integer.parseInt(given.getOrDefault("port", "18080")),
                Integer.parseInt(given.getOrDefault("kafka-port", "19092")),
                given.get("data-dir"),
                Integer.parseInt(given.getOrDefault("order-timeout", "120")),
                given.get("reads-out"),
                Boolean.parseBoolean(given.getOrDefault("hops", "false")),
                Integer.parseInt(given.getOrDefault("settle", "20")),
                subscribers(given),
                Double.parseDouble(given.getOrDefault("then-rate", "0")),
                Integer.parseInt(given.getOrDefault("then-seconds", "0")));
    }

    /** {@code --subscribers} (0, 1 or 4), or 1 for {@code --subscriber=true}. */
    private static int subscribers(Map<String, String> given) {
        boolean one = Boolean.parseBoolean(given.getOrDefault("subscriber", "false"));
        if (!given.containsKey("subscribers")) {
            return one ? 1 : 0;
        }
        int count = Integer.parseInt(given.get("subscribers"));
        if (count != 0 && count != 1 && count != 4) {
            throw new IllegalArgumentException("--subscribers is 0, 1 or 4, not " + count);
        }
        if (one && count == 0) {
            throw new IllegalArgumentException("--subscriber=true asks for a subscriber, --subscribers=0 for none");
        }
        return count;
    }
}
