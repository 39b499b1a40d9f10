package io.orderflow.runner.flows;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.SocketBuffers;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.topics.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes flows on the compacted {@code flows} topic: reads the topic to its end, validates, and appends an
 * immutable version ({@code 1} for a new flow, else the latest plus one). Seeding publishes version 1 only for
 * flows that are missing, so it is idempotent.
 *
 * <p>Publication is a compare-and-set with one writer at a time: every publisher (a runner seeding at start, the
 * publish command) writes in a Kafka transaction under the same transactional id. Starting a transaction fences any
 * other publisher and aborts its open transaction, and the flows are read only after that, so two publishers racing
 * cannot both write "latest + 1": the one fenced fails on its send or commit, reads again and tries again with the
 * next version.
 */
public final class FlowPublisher {

    private static final Logger log = LoggerFactory.getLogger(FlowPublisher.class);
    /** The one transactional id of every flow publisher (see the class comment). */
    static final String TRANSACTIONAL_ID = "orderflow-flow-publisher";
    /**
     * Attempts at one publication while other publishers keep fencing it. Each starts after a random pause that grows
     * with the attempt, so racing publishers fall out of step and one of them commits.
     */
    private static final int ATTEMPTS = 10;
    private static final long PAUSE_MS = 50;
    static final int TRANSACTION_TIMEOUT_MS = 10_000;

    private final KafkaSettings kafka;
    private final FlowValidator validator;
    private final Clock clock;

    public FlowPublisher(KafkaSettings kafka, FlowValidator validator, Clock clock) {
        this.kafka = kafka;
        this.validator = validator;
        this.clock = clock;
    }

    /** Publishes the seeded flows that the topic does not have yet; returns the ids published. */
    public List<String> seed(List<FlowDefinition> flows) {
        flows.forEach(validator::validate);
        List<FlowRecord> missing = exclusively(existing -> flows.stream().filter(f -> !existing.containsKey(f.id()))
                .map(f -> next(null, f)).toList());
        log.info("Seeded flows {} ({} already present)", missing.stream().map(FlowRecord::id).toList(),
                flows.size() - missing.size());
        return missing.stream().map(FlowRecord::id).toList();
    }

    /** Publishes {@code flow} as its next version; returns the record written. */
    public FlowRecord publish(FlowDefinition flow) {
        validator.validate(flow);
        return exclusively(existing -> List.of(next(existing.get(flow.id()), flow))).getFirst();
    }

    /** The record after publishing {@code flow} onto {@code current} (which may be {@code null}). */
    FlowRecord next(FlowRecord current, FlowDefinition flow) {
        long now = clock.millis();
        int version = Optional.ofNullable(current).map(FlowRecord::publishedVersion).orElse(0) + 1;
        List<FlowVersion> versions = new ArrayList<>(current == null ? List.of() : current.versions());
        versions.add(new FlowVersion(flow.id(), version, now, flow));
        return new FlowRecord(flow.id(), flow.name(), flow.description(), flow.orderType(), version, now, versions);
    }

    /** Every flow on the topic, read from the beginning to the current end. */
    public Map<String, FlowRecord> readAll() {
        Properties props = new Properties();
        props.putAll(kafka.clientProperties());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.putAll(SocketBuffers.client());
        Map<String, FlowRecord> flows = new HashMap<>();
        try (var consumer = new KafkaConsumer<>(props, Topics.FLOWS.keySerde().deserializer(),
                Topics.FLOWS.valueSerde().deserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.FLOWS.name(), Duration.ofSeconds(30))
                    .stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Timed out reading the flows topic");
                }
                for (ConsumerRecord<String, FlowRecord> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.value() == null) {
                        flows.remove(record.key());
                    } else {
                        flows.put(record.key(), record.value());
                    }
                }
            }
        }
        return flows;
    }

    /**
     * Writes what {@code change} makes of the flows as they are, as the only publisher: the flows are read after this
     * publisher has fenced every other, and written in one transaction; a publisher fenced in turn before it
     * committed starts over.
     */
    private List<FlowRecord> exclusively(Function<Map<String, FlowRecord>, List<FlowRecord>> change) {
        for (int attempt = 1; ; attempt++) {
            try (var producer = new KafkaProducer<>(producerProperties(), Topics.FLOWS.keySerde().serializer(),
                    Topics.FLOWS.valueSerde().serializer())) {
                producer.initTransactions();
                List<FlowRecord> records = change.apply(readAll());
                if (records.isEmpty()) {
                    return records;
                }
                producer.beginTransaction();
                for (FlowRecord record : records) {
                    producer.send(new ProducerRecord<>(Topics.FLOWS.name(), record.id(), record));
                }
                producer.commitTransaction();
                return records;
            } catch (AuthenticationException | AuthorizationException e) {
                throw new IllegalStateException("Could not publish flows: " + e.getMessage(), e);
            } catch (KafkaException e) {
                // Fenced by another publisher: depending on when the fence landed, the send or the commit fails as
                // fenced (ProducerFencedException, InvalidProducerEpochException) or with its transaction aborted
                // under it (InvalidTxnStateException, TransactionAbortedException). Each means: read again.
                if (attempt >= ATTEMPTS) {
                    throw new IllegalStateException("Could not publish flows: " + e.getMessage(), e);
                }
                log.info("Another flow publisher wrote first ({}); reading the flows again (attempt {} of {})",
                        e.getClass().getSimpleName(), attempt, ATTEMPTS);
                pause(attempt);
            }
        }
    }

    /**
     * Before attempt {@code attempt + 1}: a random pause that doubles with each attempt (50–100 ms, then 100–200 ms, ...,
     * at most 2–4 s). An attempt takes longer than the first pauses (fencing, reading the topic, a transaction), so
     * publishers racing with pauses of the same size fence each other in turn every time: seen with three publishers,
     * all ten attempts of one fenced. Growing and spread apart, the pauses let one of them finish.
     */
    private static void pause(int attempt) {
        long base = PAUSE_MS << Math.min(attempt - 1, 5);
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(base, 2 * base + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while publishing flows", e);
        }
    }

    private Properties producerProperties() {
        Properties props = new Properties();
        props.putAll(kafka.clientProperties());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TRANSACTIONAL_ID);
        // A publisher that dies inside its transaction holds back every read_committed reader of the flows topic until
        // the next publisher starts (same id: it aborts the transaction) or the coordinator aborts it after this
        // timeout: 10 s, as Kafka Streams sets for its own producers, rather than the producer's default of 60 s.
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MS);
        props.putAll(SocketBuffers.client());
        return props;
    }
}
