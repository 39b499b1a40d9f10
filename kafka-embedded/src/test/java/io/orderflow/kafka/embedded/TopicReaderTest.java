package io.orderflow.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.TopicReader.From;
import io.orderflow.kafka.TopicReader;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.topics.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The groupless reader on a real broker, each test on a topic of its own. */
class TopicReaderTest {

    private static final long WAIT_SECONDS = 30;

    private static String bootstrap;
    private static Admin admin;
    private static KafkaProducer<String, String> producer;

    private final List<TopicReader<?, ?>> readers = new ArrayList<>();

    @BeforeAll
    static void connect() {
        bootstrap = TestKafka.bootstrapServers();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringSerializer(), new StringSerializer());
    }

    @AfterAll
    static void disconnect() {
        producer.close();
        admin.close();
    }

    @AfterEach
    void closeReaders() {
        readers.forEach(TopicReader::close);
    }

    @Test
    void fromTheBeginningCatchesUpWithWhatWasThereIncludingTombstones() throws Exception {
        String topic = newTopic();
        write(topic, "a", "1");
        write(topic, "b", "2");
        write(topic, "a", null);
        Map<String, String> view = new ConcurrentHashMap<>();
        List<String> tombstones = new CopyOnWriteArrayList<>();

        TopicReader<String, String> reader = reader(new Topic<>(topic, Serdes.String(), Serdes.String(), true),
                From.BEGINNING, record -> {
                    if (record.value() == null) {
                        tombstones.add(record.key());
                        view.remove(record.key());
                    } else {
                        view.put(record.key(), record.value());
                    }
                });
        reader.start();

        reader.caughtUp().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(view).containsExactly(Map.entry("b", "2"));
        assertThat(tombstones).containsExactly("a");
    }

    @Test
    void appliedCompletesOnceTheOwnWriteHasReachedTheCallback() throws Exception {
        String topic = newTopic();
        Map<String, String> view = new ConcurrentHashMap<>();
        TopicReader<String, String> reader = reader(topic, new StringDeserializer(), From.BEGINNING,
                record -> view.put(record.key(), record.value()));
        reader.start();
        reader.caughtUp().get(WAIT_SECONDS, TimeUnit.SECONDS);

        for (int i = 0; i < 20; i++) {
            RecordMetadata written = write(topic, "k" + i, "v" + i);
            reader.applied(written).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(view).containsEntry("k" + i, "v" + i);
        }
    }

    @Test
    void readingOnlyThePartitionOfAKeySeesThatKeysRecordsAndNoneOfTheOtherPartition() throws Exception {
        String topic = newTopic();
        List<String> seen = new CopyOnWriteArrayList<>();
        TopicReader<String, String> reader = reader(topic, new StringDeserializer(), From.END,
                record -> seen.add(record.key()))
                .onlyPartitionOf("gateway-1".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        reader.start();

        RecordMetadata mine = write(topic, "gateway-1", "a reply to me");
        List<String> elsewhere = new ArrayList<>();
        for (int i = 0; elsewhere.isEmpty() || i < 8; i++) {
            RecordMetadata other = write(topic, "gateway-other-" + i, "a reply to another gateway");
            if (other.partition() != mine.partition()) {
                elsewhere.add("gateway-other-" + i);
            }
        }
        RecordMetadata last = write(topic, "gateway-1", "the last reply to me");

        reader.applied(last).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(seen).contains("gateway-1").doesNotContainAnyElementsOf(elsewhere);
    }

    @Test
    void fromTheEndSkipsOldRecordsAndMissesNothingWrittenAfterStart() throws Exception {
        String topic = newTopic();
        write(topic, "old", "before start");
        List<String> seen = new CopyOnWriteArrayList<>();
        TopicReader<String, String> reader = reader(topic, new StringDeserializer(), From.END,
                record -> seen.add(record.value()));

        reader.start();
        // No pause: the positions are fixed when start() returns, so the very next write is read.
        RecordMetadata written = write(topic, "new", "after start");

        assertThat(reader.caughtUp()).isDone();
        reader.applied(written).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(seen).containsExactly("after start");
    }

    @Test
    void skipsRecordsItCannotDeserializeOrHandle() throws Exception {
        String topic = newTopic();
        write(topic, "a", "unreadable");
        write(topic, "b", "fails in the callback");
        write(topic, "c", "fine");
        Deserializer<String> strict = (ignored, bytes) -> {
            String value = new String(bytes, StandardCharsets.UTF_8);
            if (value.equals("unreadable")) {
                throw new IllegalArgumentException("not a value");
            }
            return value;
        };
        List<String> seen = new CopyOnWriteArrayList<>();
        TopicReader<String, String> reader = reader(topic, strict, From.BEGINNING, record -> {
            if (record.key().equals("b")) {
                throw new IllegalStateException("cannot apply");
            }
            seen.add(record.value());
        });
        reader.start();

        reader.caughtUp().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(seen).containsExactly("fine");
        RecordMetadata written = write(topic, "d", "still reading");
        reader.applied(written).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(seen).containsExactly("fine", "still reading");
    }

    @Test
    void startWaitsForATopicThatIsCreatedLate() throws Exception {
        String topic = "reader-test-" + UUID.randomUUID();
        List<String> seen = new CopyOnWriteArrayList<>();
        TopicReader<String, String> reader = reader(topic, new StringDeserializer(), From.BEGINNING,
                record -> seen.add(record.value()));

        CompletableFuture<Void> started = CompletableFuture.runAsync(reader::start);
        Thread.sleep(1_000); // start() is polling for the topic's metadata meanwhile
        assertThat(started).isNotDone();
        admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(WAIT_SECONDS, TimeUnit.SECONDS);

        started.get(WAIT_SECONDS, TimeUnit.SECONDS);
        reader.applied(write(topic, "k", "v")).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(seen).containsExactly("v");
    }

    /**
     * A write whose completion waits on the reader again (the next write of a view, made on the thread that read the
     * first): the reader completes the first wait, takes the second, and reads on.
     */
    @Test
    void aWaitAskedForWhileAnotherCompletesIsReleasedAndTheReaderGoesOn() throws Exception {
        String topic = newTopic();
        TopicReader<String, String> reader = reader(topic, new StringDeserializer(), From.END, record -> { });
        reader.start();
        TopicPartition partition = new TopicPartition(topic, 0);
        RecordMetadata first = new RecordMetadata(partition, 0, 0, 0, 0, 0);
        RecordMetadata second = new RecordMetadata(partition, 1, 0, 0, 0, 0);
        CompletableFuture<Void> chained = reader.applied(first).thenCompose(passed -> reader.applied(second));

        producer.send(new ProducerRecord<>(topic, 0, "a", "1"));
        producer.send(new ProducerRecord<>(topic, 0, "b", "2")).get(WAIT_SECONDS, TimeUnit.SECONDS);

        chained.get(WAIT_SECONDS, TimeUnit.SECONDS);
        reader.applied(write(topic, "c", "3")).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void closeStopsTheThreadAndCancelsPendingWaits() throws Exception {
        String topic = newTopic();
        TopicReader<String, String> reader = reader(topic, new StringDeserializer(), From.END, record -> { });
        reader.start();
        RecordMetadata notYetWritten = new RecordMetadata(new TopicPartition(topic, 0),
                1_000, 0, 0, 0, 0);
        CompletableFuture<Void> pending = reader.applied(notYetWritten);

        reader.close();

        assertThat(pending).isCancelled();
        assertThat(reader.applied(notYetWritten)).isCancelled();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith(topic + "-reader-"));
    }

    private <V> TopicReader<String, V> reader(Topic<String, V> topic, From from,
                                              Consumer<ConsumerRecord<String, V>> handler) {
        TopicReader<String, V> reader = new TopicReader<>(bootstrap, topic, from, handler);
        readers.add(reader);
        return reader;
    }

    private TopicReader<String, String> reader(String topic, Deserializer<String> values, From from,
                                               Consumer<ConsumerRecord<String, String>> handler) {
        TopicReader<String, String> reader =
                new TopicReader<>(new KafkaSettings(bootstrap), topic, new StringDeserializer(), values, from, handler);
        readers.add(reader);
        return reader;
    }

    /** A fresh topic with two partitions, so the reader has more than one to keep track of. */
    private static String newTopic() throws Exception {
        String topic = "reader-test-" + UUID.randomUUID();
        admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(WAIT_SECONDS, TimeUnit.SECONDS);
        return topic;
    }

    private static RecordMetadata write(String topic, String key, String value) throws Exception {
        return producer.send(new ProducerRecord<>(topic, key, value)).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
}
