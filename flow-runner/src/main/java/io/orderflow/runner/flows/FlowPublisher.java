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
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes flows on the compacted {@code flows} topic: reads the topic to its end, validates, and appends an
 * immutable version ({@code 1} for a new flow, else the latest plus one). Seeding publishes version 1 only for
 * flows that are missing, so it is idempotent.
 */
public final class FlowPublisher {

    private static final Logger log = LoggerFactory.getLogger(FlowPublisher.class);

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
        Map<String, FlowRecord> existing = readAll();
        List<FlowRecord> missing = flows.stream().filter(f -> !existing.containsKey(f.id()))
                .map(f -> next(null, f)).toList();
        write(missing);
        log.info("Seeded flows {} ({} already present)", missing.stream().map(FlowRecord::id).toList(),
                flows.size() - missing.size());
        return missing.stream().map(FlowRecord::id).toList();
    }

    /** Publishes {@code flow} as its next version; returns the record written. */
    public FlowRecord publish(FlowDefinition flow) {
        validator.validate(flow);
        FlowRecord record = next(readAll().get(flow.id()), flow);
        write(List.of(record));
        return record;
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

    private void write(List<FlowRecord> records) {
        if (records.isEmpty()) {
            return;
        }
        Properties props = new Properties();
        props.putAll(kafka.clientProperties());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.putAll(SocketBuffers.client());
        try (var producer = new KafkaProducer<>(props, Topics.FLOWS.keySerde().serializer(),
                Topics.FLOWS.valueSerde().serializer())) {
            for (FlowRecord record : records) {
                producer.send(new ProducerRecord<>(Topics.FLOWS.name(), record.id(), record)).get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while publishing flows", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Could not publish flows: " + e.getCause().getMessage(), e.getCause());
        }
    }
}
