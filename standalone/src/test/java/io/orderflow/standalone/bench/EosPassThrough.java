package io.orderflow.standalone.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * The machine's Kafka exactly-once limit for a stateful hop: a Kafka Streams application with {@code exactly_once_v2}
 * that reads a record, puts it in a RocksDB store and writes it out, on the same broker as the system, with Kafka
 * Streams' defaults. Its records/s is the yardstick the order rate is compared with.
 */
final class EosPassThrough {

    static final String PREFIX = "bench-eos-";

    private EosPassThrough() {
    }

    /** Records per second through the application, first to last processed record. */
    static double measure(String bootstrap, int records) throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        String in = PREFIX + "in-" + run;
        String out = PREFIX + "out-" + run;
        Path stateDir = Files.createTempDirectory("perf-data-eos-");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(in, 3, (short) 1), new NewTopic(out, 3, (short) 1))).all().get();
            while (!admin.describeTopics(List.of(in, out)).allTopicNames().get().values().stream()
                    .allMatch(t -> t.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()))) {
                Thread.sleep(100);
            }
            String value = "x".repeat(200);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 20),
                    new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < records; i++) {
                    producer.send(new ProducerRecord<>(in, "key-" + (i % 20_000), value));
                }
            }
            AtomicLong processed = new AtomicLong();
            AtomicLong first = new AtomicLong();
            AtomicLong last = new AtomicLong();
            Topology topology = new Topology();
            topology.addSource("in", Serdes.String().deserializer(), Serdes.String().deserializer(), in);
            topology.addProcessor("store-and-forward", () -> new Processor<String, String, String, String>() {
                private ProcessorContext<String, String> context;
                private KeyValueStore<String, String> store;

                @Override
                public void init(ProcessorContext<String, String> context) {
                    this.context = context;
                    store = context.getStateStore("pass-through");
                }

                @Override
                public void process(Record<String, String> record) {
                    store.put(record.key(), record.value());
                    context.forward(record);
                    long now = System.nanoTime();
                    first.compareAndSet(0, now);
                    last.set(now);
                    processed.incrementAndGet();
                }
            }, "in");
            topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("pass-through"),
                    Serdes.String(), Serdes.String()), "store-and-forward");
            topology.addSink("out", out, Serdes.String().serializer(), Serdes.String().serializer(),
                    "store-and-forward");
            Properties props = new Properties();
            props.put(StreamsConfig.APPLICATION_ID_CONFIG, PREFIX + "app-" + run);
            props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
            props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            try (KafkaStreams streams = new KafkaStreams(topology, props)) {
                streams.start();
                long deadline = System.nanoTime() + 300_000_000_000L;
                while (processed.get() < records && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                streams.close(java.time.Duration.ofSeconds(30));
            }
            double seconds = Math.max(1e-9, (last.get() - first.get()) / 1e9);
            List<String> mine = admin.listTopics().names().get().stream()
                    .filter(name -> name.equals(in) || name.equals(out) || name.startsWith(PREFIX + "app-" + run))
                    .toList();
            admin.deleteTopics(mine).all().get();
            return processed.get() / seconds;
        } finally {
            try (Stream<Path> files = Files.walk(stateDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
