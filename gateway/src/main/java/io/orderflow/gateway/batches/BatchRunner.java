package io.orderflow.gateway.batches;

import io.orderflow.gateway.GatewayProperties;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.commands.CommandBus;
import io.orderflow.gateway.commands.CommandReplies;
import io.orderflow.gateway.commands.OrderCommands;
import io.orderflow.gateway.orders.ProcessorClient;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.SocketBuffers;
import io.orderflow.schemas.batches.BatchFilter;
import io.orderflow.schemas.batches.BatchRecord;
import io.orderflow.schemas.batches.BatchRecord.Definition;
import io.orderflow.schemas.batches.BatchRecord.Progress;
import io.orderflow.schemas.commands.BatchAction;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderQueries;
import io.orderflow.schemas.topics.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;

/**
 * Runs batch operations. The partitions of the {@code batches} topic are shared among the gateway instances by a
 * consumer group ({@value #GROUP}); each batch is run by the one instance that has its partition. That instance reads
 * the partition from the beginning, and once it has caught up, runs every batch on it that has not ended, from its
 * last checkpoint ({@link Progress}).
 *
 * <p>A batch first matches: it walks the order list with its filter a page at a time (cursor paging, never the
 * whole list at once), keeping each page's order ids as a chunk on the topic, up to
 * {@link BatchProperties#maxOrders()}; orders created after the batch are not matched. Then it acts: one order at a
 * time, at most its {@code rate} a second and {@link BatchProperties#rate()} a second across the instance's batches,
 * each order gets the batch's command ({@link OrderCommand.ApplyBatchAction}) as whoever started the batch. An answer
 * in 2xx counts as done, any other refusal as failed with its reason; no answer (the processor away) is tried again,
 * later and later, until there is one. The checkpoint is written at most every {@link #CHECKPOINT_EVERY}, and when
 * the batch ends, is stopped, or its partition moves to another instance. An order acted on after the last
 * checkpoint that was written is sent again after a restart; its agent remembers the batch and answers it as done
 * without acting twice.
 *
 * <p>A stop ({@code <batchId>/stop}) takes effect before the batch's next order; the order under way finishes.
 * A batch that ended more than {@link BatchProperties#retention()} ago is removed: a tombstone for each of its keys.
 */
@Component
public class BatchRunner implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(BatchRunner.class);

    /** The consumer group that shares the batches among the gateway instances. */
    public static final String GROUP = "orderflow-batch-runner";
    static final Duration CHECKPOINT_EVERY = Duration.ofMillis(250);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    private static final Duration LAST_RETRY = Duration.ofSeconds(30);
    private static final Duration SWEEP_EVERY = Duration.ofMinutes(1);
    private static final Duration IDLE = Duration.ofMillis(200);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration STOP_WAIT = Duration.ofSeconds(20);
    /** The longest reason kept for an order the batch could not act on. */
    static final int REASON_MAX = 500;

    private final KafkaSettings kafka;
    private final GatewayProperties gateway;
    private final BatchProperties settings;
    private final CommandBus commands;
    private final ProcessorClient processor;
    private final Clock clock;

    /** The batches this instance runs, by id: added by the reader thread, stepped by the worker thread. */
    private final Map<String, Run> runs = new ConcurrentHashMap<>();
    /** The ended batches of this instance's partitions, by id, until their retention has run out. */
    private final Map<String, Ended> ended = new ConcurrentHashMap<>();
    private volatile boolean running;
    private volatile Thread reader;
    private volatile Thread worker;
    private volatile KafkaConsumer<String, BatchRecord> consumer;
    private volatile BatchWriter writer;

    public BatchRunner(KafkaSettings kafka, GatewayProperties gateway, BatchProperties settings, CommandBus commands,
                       ProcessorClient processor, Clock clock) {
        this.kafka = kafka;
        this.gateway = gateway;
        this.settings = settings;
        this.commands = commands;
        this.processor = processor;
        this.clock = clock;
    }

    /** A batch that ended: when, and what to tombstone once its retention has run out. */
    private record Ended(String batchId, int partition, long endedAt, int chunks) {
    }

    // ---- lifecycle -----------------------------------------------------------------------------------------------

    @Override
    public void start() {
        writer = new BatchWriter(kafka, gateway.instanceId() + "-batch-runner");
        Properties props = new Properties();
        props.putAll(kafka.clientProperties());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, gateway.instanceId() + "-batch-runner");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.putAll(SocketBuffers.client());
        consumer = new KafkaConsumer<>(props, Topics.BATCHES.keySerde().deserializer(),
                Topics.BATCHES.valueSerde().deserializer());
        running = true;
        reader = Thread.ofPlatform().name("batch-runner-reader").daemon().start(new Reader());
        worker = Thread.ofPlatform().name("batch-runner").daemon().start(this::work);
    }

    /**
     * Stops acting (the order under way finishes), writes every batch's checkpoint and leaves the group, so another
     * instance takes the partitions over at once.
     */
    @Override
    public void stop() {
        running = false;
        LockSupport.unpark(worker);
        join(worker);
        consumer.wakeup();
        join(reader);
        writer.close();
    }

    private static void join(Thread thread) {
        try {
            thread.join(STOP_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** After the command bus and the views (phase 0), which it uses; stopped before them. */
    @Override
    public int getPhase() {
        return 100;
    }

    /** The batches this instance runs now (for tests and logs). */
    Collection<String> runningHere() {
        return List.copyOf(runs.keySet());
    }

    // ---- reading the partitions ------------------------------------------------------------------------------------

    /** What has been read of a batch while its partition is restored. */
    private static final class Known {
        Definition definition;
        Progress progress;
        BatchRecord.Stop stop;
        final TreeMap<Integer, List<String>> chunks = new TreeMap<>();
    }

    /**
     * The reader thread: the group consumer. On an assignment it reads the new partitions from the beginning and,
     * once caught up with where they ended at the assignment, starts their batches; after that it passes on new
     * batches and stop requests. On a revocation it takes the partitions' batches back from the worker, with their
     * checkpoints written.
     */
    private final class Reader implements Runnable, ConsumerRebalanceListener {

        /** Partitions being read from the beginning: where they ended at the assignment, and what was read. */
        private final Map<Integer, Long> restoringUntil = new HashMap<>();
        private final Map<Integer, Map<String, Known>> restoring = new HashMap<>();

        @Override
        public void run() {
            try {
                consumer.subscribe(List.of(Topics.BATCHES.name()), this);
                while (running) {
                    for (ConsumerRecord<String, BatchRecord> record : poll()) {
                        try {
                            read(record);
                        } catch (RuntimeException e) {
                            log.warn("Skipping a batches record at {}-{} that could not be handled",
                                    record.partition(), record.offset(), e);
                        }
                    }
                    caughtUp();
                }
            } catch (WakeupException e) {
                // stopping
            } catch (RuntimeException e) {
                log.error("The batch runner's reader stopped", e);
            } finally {
                releaseAll(runs.values(), true);
                try {
                    consumer.close();
                } catch (RuntimeException e) {
                    log.warn("The batch runner's consumer did not close cleanly", e);
                }
            }
        }

        private ConsumerRecords<String, BatchRecord> poll() {
            try {
                return consumer.poll(POLL);
            } catch (RecordDeserializationException e) {
                log.warn("Skipping an unreadable batches record at {} offset {}", e.topicPartition(), e.offset(), e);
                consumer.seek(e.topicPartition(), e.offset() + 1);
                return ConsumerRecords.empty();
            }
        }

        private void read(ConsumerRecord<String, BatchRecord> record) {
            String id = BatchRecord.batchOf(record.key());
            Map<String, Known> restored = restoring.get(record.partition());
            if (restored != null) {
                restore(restored, record.key(), id, record.value());
                return;
            }
            switch (record.value()) {
                case Definition definition when !runs.containsKey(id) && !ended.containsKey(id) -> {
                    runs.put(id, new Run(definition, record.partition(), null, null, new TreeMap<>()));
                    LockSupport.unpark(worker);
                }
                case BatchRecord.Stop stop -> {
                    Run run = runs.get(id);
                    if (run != null) {
                        run.stop = stop;
                        LockSupport.unpark(worker);
                    }
                }
                case null, default -> {
                    // the runner's own progress and chunks, or tombstones: what they say, it holds already
                }
            }
        }

        private void restore(Map<String, Known> restored, String key, String id, BatchRecord value) {
            if (value == null) {
                if (key.equals(id)) {
                    restored.remove(id);
                }
                return;
            }
            Known known = restored.computeIfAbsent(id, ignored -> new Known());
            switch (value) {
                case Definition definition -> known.definition = definition;
                case Progress progress -> {
                    // the last one read is the checkpoint the batch goes on from; the chunks before it are dropped
                    // when the batch starts, since a later record may set the checkpoint back
                    known.progress = progress;
                    if (progress.ended()) {
                        known.chunks.clear();
                    }
                }
                case BatchRecord.Stop stop -> known.stop = stop;
                case BatchRecord.Chunk chunk -> {
                    if (known.progress == null || !known.progress.ended()) {
                        known.chunks.put(chunk.index(), chunk.orderIds());
                    }
                }
            }
        }

        /** Starts the batches of each restoring partition that has caught up. */
        private void caughtUp() {
            for (var it = restoringUntil.entrySet().iterator(); it.hasNext(); ) {
                var until = it.next();
                TopicPartition partition = new TopicPartition(Topics.BATCHES.name(), until.getKey());
                if (consumer.position(partition) < until.getValue()) {
                    continue;
                }
                it.remove();
                for (Known known : restoring.remove(until.getKey()).values()) {
                    if (known.definition == null) {
                        continue;
                    }
                    String id = known.definition.batchId();
                    if (known.progress != null && known.progress.ended()) {
                        ended.put(id, new Ended(id, until.getKey(), known.progress.endedAt() == null
                                ? known.progress.updatedAt() : known.progress.endedAt(), known.progress.chunks()));
                    } else {
                        runs.put(id, new Run(known.definition, until.getKey(), known.progress, known.stop,
                                known.chunks));
                    }
                }
                log.info("Batches of partition {} read; this instance runs {} batches", until.getKey(), runs.size());
                LockSupport.unpark(worker);
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            consumer.seekToBeginning(partitions);
            consumer.endOffsets(partitions).forEach((partition, end) -> {
                restoringUntil.put(partition.partition(), end);
                restoring.put(partition.partition(), new HashMap<>());
            });
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            giveBack(partitions, true);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            giveBack(partitions, false);
        }

        /** Stops running the partitions' batches, with their checkpoints written unless the partitions were lost. */
        private void giveBack(Collection<TopicPartition> partitions, boolean checkpoint) {
            List<Integer> numbers = partitions.stream().map(TopicPartition::partition).toList();
            numbers.forEach(n -> {
                restoringUntil.remove(n);
                restoring.remove(n);
            });
            releaseAll(runs.values().stream().filter(run -> numbers.contains(run.partition)).toList(), checkpoint);
            ended.values().removeIf(e -> numbers.contains(e.partition()));
        }
    }

    /** Takes the runs back from the worker (waiting for an order under way), writing their checkpoints. */
    private void releaseAll(Collection<Run> released, boolean checkpoint) {
        for (Run run : List.copyOf(released)) {
            run.lock.lock();
            try {
                run.released = true;
                if (checkpoint && run.dirty) {
                    writer.send(run.progress);
                }
            } finally {
                run.lock.unlock();
            }
            runs.remove(run.definition.batchId());
        }
        if (checkpoint && !released.isEmpty()) {
            writer.flush();
        }
    }

    // ---- running the batches ---------------------------------------------------------------------------------------

    /** A batch this instance runs. Its progress is changed only under its lock, by the worker or at its release. */
    private final class Run {

        final Definition definition;
        final int partition;
        final ReentrantLock lock = new ReentrantLock();
        /** The chunks of matched ids not yet acted on, by index. */
        final TreeMap<Integer, List<String>> chunks;
        final Pace pace;
        Progress progress;
        volatile BatchRecord.Stop stop;
        volatile boolean released;
        /** The progress has changed since it was last written. */
        boolean dirty;
        long lastWritten;
        Duration retry = FIRST_RETRY;

        Run(Definition definition, int partition, Progress progress, BatchRecord.Stop stop,
            TreeMap<Integer, List<String>> chunks) {
            this.definition = definition;
            this.partition = partition;
            this.progress = progress != null ? progress : Progress.start(definition.batchId(), clock.millis());
            this.stop = stop;
            this.chunks = chunks;
            this.pace = new Pace(Math.max(1, Math.min(definition.rate(), settings.rate())));
            if (definition.orderIds() != null) {
                List<String> ids = definition.orderIds();
                for (int from = 0, index = 0; from < ids.size(); from += BatchRecord.Chunk.MAX_IDS, index++) {
                    chunks.put(index, ids.subList(from, Math.min(ids.size(), from + BatchRecord.Chunk.MAX_IDS)));
                }
            }
            chunks.headMap(this.progress.chunk()).clear(); // acted on already
        }

        String id() {
            return definition.batchId();
        }

        boolean acting() {
            return BatchRecord.ACTING.equals(progress.phase());
        }
    }

    /**
     * The worker thread: steps the batch whose turn is due first (a stop first of all), an order at a time within the
     * instance's rate; sweeps the ended batches past their retention once a minute.
     */
    private void work() {
        Pace instance = new Pace(settings.rate());
        long nextSweep = System.nanoTime();
        while (running) {
            long now = System.nanoTime();
            if (now - nextSweep >= 0) {
                sweep();
                nextSweep = now + SWEEP_EVERY.toNanos();
            }
            Run next = null;
            for (Run run : runs.values()) {
                if (run.stop != null) {
                    next = run;
                    break;
                }
                if (next == null || run.pace.due() - next.pace.due() < 0) {
                    next = run;
                }
            }
            long due = next == null ? now + IDLE.toNanos()
                    : next.stop != null ? now : Math.max(next.pace.due(), next.acting() ? instance.due() : now);
            if (due - now > 0) {
                LockSupport.parkNanos(Math.min(due - now, IDLE.toNanos()));
                continue;
            }
            try {
                boolean acted = step(next);
                if (acted) {
                    instance.took(System.nanoTime());
                }
            } catch (RuntimeException e) {
                log.error("Batch {} could not take a step; it tries again", next.id(), e);
                next.pace.notBefore(System.nanoTime() + LAST_RETRY.toNanos());
            }
        }
    }

    /** One step of a batch: a page matched, or an order acted on; answers whether it sent an order's command. */
    private boolean step(Run run) {
        run.lock.lock();
        try {
            if (run.released) {
                return false;
            }
            if (run.stop != null) {
                end(run, BatchRecord.STOPPED, run.stop.by());
                return false;
            }
            if (!run.acting()) {
                match(run);
                return false;
            }
            return act(run);
        } finally {
            run.lock.unlock();
        }
    }

    /** Matches one more page of orders; the last page (or the cap) turns the batch to acting. */
    private void match(Run run) {
        Definition definition = run.definition;
        Progress p = run.progress;
        if (definition.orderIds() != null) {
            int count = definition.orderIds().size();
            run.progress = progress(p, BatchRecord.ACTING, count, p.done(), p.failed(), p.failures(), null,
                    (count + BatchRecord.Chunk.MAX_IDS - 1) / BatchRecord.Chunk.MAX_IDS, 0, 0, false);
            checkpoint(run, true);
            return;
        }
        OrderQueries.OrderList page;
        try {
            ResponseEntity<byte[]> answer = processor.orders(query(definition, p.cursor()), false).block();
            if (answer == null || !answer.getStatusCode().is2xxSuccessful() || answer.getBody() == null) {
                log.warn("Batch {}: the order list answered {}; trying again", run.id(),
                        answer == null ? "nothing" : answer.getStatusCode());
                later(run);
                return;
            }
            page = Json.MAPPER.readValue(answer.getBody(), OrderQueries.OrderList.class);
        } catch (ApiException e) {
            log.warn("Batch {}: the order list could not be read ({}); trying again", run.id(), e.getMessage());
            later(run);
            return;
        }
        int room = settings.maxOrders() - p.matched();
        List<String> ids = page.orders().stream().map(row -> row.path("id").asString(""))
                .filter(id -> !id.isEmpty()).limit(Math.max(0, room)).toList();
        int chunks = p.chunks();
        if (!ids.isEmpty()) {
            BatchRecord.Chunk chunk = new BatchRecord.Chunk(run.id(), chunks, ids);
            writer.send(chunk);
            run.chunks.put(chunks, ids);
            chunks++;
        }
        int matched = p.matched() + ids.size();
        boolean capped = page.next() != null && matched >= settings.maxOrders();
        boolean last = page.next() == null || capped;
        run.progress = progress(p, last ? BatchRecord.ACTING : BatchRecord.MATCHING, matched, p.done(), p.failed(),
                p.failures(), last ? null : page.next(), chunks, 0, 0, capped);
        run.retry = FIRST_RETRY;
        checkpoint(run, true);
    }

    /** The list query of a batch's filter: orders created up to the batch's creation at the latest. */
    static OrderQueries.ListQuery query(Definition definition, String cursor) {
        BatchFilter filter = definition.filter() == null ? new BatchFilter(null, null, null, null, null)
                : definition.filter();
        long until = filter.until() == null ? definition.createdAt() : Math.min(filter.until(),
                definition.createdAt());
        return new OrderQueries.ListQuery(filter.type(), filter.status(), filter.q(), filter.since(), until,
                OrderQueries.SORT_CREATED, cursor, OrderQueries.LIST_MAX);
    }

    /** Acts on the next order: answers whether its command was sent. */
    private boolean act(Run run) {
        Progress p = run.progress;
        if (p.chunk() >= p.chunks()) {
            end(run, BatchRecord.COMPLETED, null);
            return false;
        }
        List<String> ids = run.chunks.get(p.chunk());
        if (ids == null || p.position() >= ids.size()) {
            log.warn("Batch {}: chunk {} of its matched orders is missing; it goes on with the next", run.id(),
                    p.chunk());
            run.progress = progress(p, p.phase(), p.matched(), p.done(), p.failed(), p.failures(), null, p.chunks(),
                    p.chunk() + 1, 0, p.capped());
            return false;
        }
        String orderId = ids.get(p.position());
        String failure;
        try {
            CommandReply reply = commands.send(OrderCommands.batchAction(orderId, run.id(), run.definition.action()),
                    run.definition.caller()).block();
            failure = failure(run.definition.action(), reply);
        } catch (ApiException e) {
            if (e.status().value() == 503) {
                log.warn("Batch {}: no answer for order {} ({}); trying again", run.id(), orderId, e.getMessage());
                later(run);
                return true;
            }
            failure = e.getMessage();
        } catch (Retry again) {
            later(run);
            return true;
        }
        run.retry = FIRST_RETRY;
        List<BatchRecord.Failure> failures = p.failures();
        if (failure != null && failures.size() < Progress.FAILURES_KEPT) {
            failures = new ArrayList<>(failures);
            failures.add(new BatchRecord.Failure(orderId, clip(failure), clock.millis()));
        }
        boolean chunkDone = p.position() + 1 >= ids.size();
        if (chunkDone) {
            run.chunks.remove(p.chunk());
        }
        run.progress = progress(p, p.phase(), p.matched(), p.done() + (failure == null ? 1 : 0),
                p.failed() + (failure == null ? 0 : 1), failures, null, p.chunks(),
                chunkDone ? p.chunk() + 1 : p.chunk(), chunkDone ? 0 : p.position() + 1, p.capped());
        run.pace.took(System.nanoTime());
        if (run.progress.chunk() >= run.progress.chunks()) {
            end(run, BatchRecord.COMPLETED, null);
        } else {
            checkpoint(run, false);
        }
        return true;
    }

    /** No answer that says what became of the order: it is tried again later. */
    private static final class Retry extends RuntimeException {
        Retry() {
            super(null, null, false, false);
        }
    }

    /**
     * Why the order's agent did not act ({@code null}: it did): a refusal's error, or for an incident retry an incident
     * that failed again. A 503 or no reply at all says nothing about the order, and is tried again.
     */
    private static String failure(BatchAction action, CommandReply reply) {
        if (reply == null || CommandReplies.status(reply) == 503) {
            throw new Retry();
        }
        JsonNode body = CommandReplies.body(reply);
        if (CommandReplies.accepted(reply)) {
            if (action instanceof BatchAction.RetryIncident && "open".equals(body.path("status").asString(null))) {
                return "Retried, and it failed again: " + body.path("cause").asString("");
            }
            return null;
        }
        return body.path("error").asString("Refused with status " + CommandReplies.status(reply));
    }

    private static String clip(String reason) {
        return reason.length() <= REASON_MAX ? reason : reason.substring(0, REASON_MAX - 1) + "…";
    }

    /** The batch waits before its next try, longer each time up to {@link #LAST_RETRY}. */
    private static void later(Run run) {
        run.pace.notBefore(System.nanoTime() + run.retry.toNanos());
        run.retry = run.retry.multipliedBy(2).compareTo(LAST_RETRY) > 0 ? LAST_RETRY : run.retry.multipliedBy(2);
    }

    /** Ends the batch: its last progress is written and it leaves the runs. */
    private void end(Run run, String state, String stoppedBy) {
        Progress p = run.progress;
        long now = clock.millis();
        run.progress = new Progress(p.batchId(), state, p.phase(), p.matched(), p.done(), p.failed(), p.failures(),
                p.cursor(), p.chunks(), p.chunk(), p.position(), p.capped(), now, now, stoppedBy);
        checkpoint(run, true);
        run.released = true;
        runs.remove(run.id());
        ended.put(run.id(), new Ended(run.id(), run.partition, now, p.chunks()));
        log.info("Batch {} {}: {} matched, {} done, {} failed", run.id(), state, p.matched(), p.done(), p.failed());
    }

    private Progress progress(Progress p, String phase, int matched, int done, int failed,
                              List<BatchRecord.Failure> failures, String cursor, int chunks, int chunk, int position,
                              boolean capped) {
        return new Progress(p.batchId(), p.state(), phase, matched, done, failed, failures, cursor, chunks, chunk,
                position, capped, clock.millis(), p.endedAt(), p.stoppedBy());
    }

    /** Writes the progress when asked to, or when the last write is {@link #CHECKPOINT_EVERY} old. */
    private void checkpoint(Run run, boolean now) {
        long at = System.nanoTime();
        if (!now && at - run.lastWritten < CHECKPOINT_EVERY.toNanos()) {
            run.dirty = true;
            return;
        }
        writer.send(run.progress).whenComplete((metadata, error) -> {
            if (error != null) {
                log.warn("Batch {}: its progress could not be written: {}", run.id(), error.toString());
            }
        });
        run.lastWritten = at;
        run.dirty = false;
    }

    /** Removes the batches that ended more than the retention ago: a tombstone for each of their keys. */
    private void sweep() {
        long cutoff = clock.millis() - settings.retention().toMillis();
        for (Ended one : List.copyOf(ended.values())) {
            if (one.endedAt() > cutoff) {
                continue;
            }
            String id = one.batchId();
            for (int chunk = 0; chunk < one.chunks(); chunk++) {
                writer.tombstone(BatchRecord.chunkKey(id, chunk), id);
            }
            writer.tombstone(BatchRecord.stopKey(id), id);
            writer.tombstone(BatchRecord.progressKey(id), id);
            writer.tombstone(id, id);
            ended.remove(id);
            log.info("Batch {} removed: it ended more than {} ago", id, settings.retention());
        }
    }
}
