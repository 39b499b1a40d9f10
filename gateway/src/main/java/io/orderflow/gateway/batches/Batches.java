package io.orderflow.gateway.batches;

import io.orderflow.gateway.GatewayProperties;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.kafka.CompactedTopicView;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.schemas.batches.BatchRecord;
import io.orderflow.schemas.topics.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeoutException;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The gateway's view of the compacted {@code batches} topic: every batch's definition, progress and stop request,
 * read from the beginning at start on every partition, so any gateway instance answers for any batch. The chunks of
 * matched order ids are not kept here (only the instance that runs a batch needs them), nor the ids a batch names
 * one by one (their number is). Writes complete once this instance's view holds them, so a caller reads its own
 * batch at once. A batch removed after its retention (tombstones) leaves the view.
 */
@Component
public class Batches extends CompactedTopicView<String, BatchRecord> {

    private static final Duration LOAD_TIMEOUT = Duration.ofSeconds(10);

    private final KafkaSettings kafka;
    private final GatewayProperties gateway;
    private final Map<String, Batch> batches = new ConcurrentHashMap<>();
    /** Newest first: {@link #sortKey} to batch id. */
    private final ConcurrentSkipListMap<String, String> newestFirst = new ConcurrentSkipListMap<>();
    private volatile BatchWriter writer;

    /**
     * A batch as the view holds it: its definition (without the ids it names, counted in {@code picked}), its
     * progress ({@code null} until its runner first writes it) and the stop asked for ({@code null}: none).
     */
    public record Batch(BatchRecord.Definition definition, Integer picked, BatchRecord.Progress progress,
                        BatchRecord.Stop stop) {

        /** How far it has got: its progress, or a batch that has not started. */
        public BatchRecord.Progress current() {
            return progress != null ? progress
                    : BatchRecord.Progress.start(definition.batchId(), definition.createdAt());
        }

        public boolean ended() {
            return current().ended();
        }
    }

    public Batches(KafkaSettings kafka, GatewayProperties gateway) {
        super(kafka, Topics.BATCHES);
        this.kafka = kafka;
        this.gateway = gateway;
    }

    @Override
    protected void apply(String key, BatchRecord value) {
        String id = BatchRecord.batchOf(key);
        if (value == null) {
            if (key.equals(id)) {
                Batch gone = batches.remove(id);
                if (gone != null && gone.definition() != null) {
                    newestFirst.remove(sortKey(gone.definition()));
                }
            }
            return;
        }
        switch (value) {
            case BatchRecord.Definition definition -> {
                Integer picked = definition.orderIds() == null ? null : definition.orderIds().size();
                BatchRecord.Definition slim = new BatchRecord.Definition(definition.batchId(), definition.filter(),
                        null, definition.action(), definition.rate(), definition.caller(), definition.createdBy(),
                        definition.createdAt());
                batches.compute(id, (ignored, held) -> new Batch(slim, picked,
                        held == null ? null : held.progress(), held == null ? null : held.stop()));
                newestFirst.put(sortKey(slim), id);
            }
            case BatchRecord.Progress progress -> batches.computeIfPresent(id, (ignored, held) ->
                    new Batch(held.definition(), held.picked(), progress, held.stop()));
            case BatchRecord.Stop stop -> batches.computeIfPresent(id, (ignored, held) ->
                    new Batch(held.definition(), held.picked(), held.progress(), stop));
            case BatchRecord.Chunk chunk -> {
                // the runner's own: only the instance that runs the batch reads them
            }
        }
    }

    /** Newest created first, ties by id: the inverted creation time, zero-padded, then the id. */
    private static String sortKey(BatchRecord.Definition definition) {
        return String.format("%019d|%s", Long.MAX_VALUE - definition.createdAt(), definition.batchId());
    }

    /** Completes once the view holds everything the topic held at start; 503 if that takes too long. */
    public Mono<Void> loaded() {
        return Mono.fromFuture(caughtUp(), false).timeout(LOAD_TIMEOUT)
                .onErrorMap(TimeoutException.class, e -> ApiException.unavailable("Batches are still loading"));
    }

    // ---- reads ---------------------------------------------------------------------------------------------------

    public Optional<Batch> get(String id) {
        return Optional.ofNullable(batches.get(id));
    }

    /** A page of batches, newest first, starting after the cursor (a page's {@code next}; {@code null}: the first). */
    public Page page(String cursor, int limit) {
        String after = cursor == null ? null : decode(cursor);
        var keys = after == null ? newestFirst.entrySet() : newestFirst.tailMap(after, false).entrySet();
        List<Batch> rows = keys.stream().map(entry -> batches.get(entry.getValue()))
                .filter(batch -> batch != null).limit(limit + 1L).toList();
        if (rows.size() <= limit) {
            return new Page(rows, null);
        }
        List<Batch> page = rows.subList(0, limit);
        return new Page(page, encode(sortKey(page.getLast().definition())));
    }

    /** One page of the list, and the cursor of the next ({@code null} on the last). */
    public record Page(List<Batch> batches, String next) {
    }

    /** How many batches are running. */
    public long running() {
        return batches.values().stream().filter(batch -> batch.definition() != null && !batch.ended()).count();
    }

    private static String encode(String sortKey) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(sortKey.getBytes(StandardCharsets.UTF_8));
    }

    /** The sort key a cursor names; a cursor this view did not write is a 400. */
    private static String decode(String cursor) {
        try {
            String key = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            if (key.length() > 19 && key.charAt(19) == '|' && key.substring(0, 19).chars().allMatch(Character::isDigit)) {
                return key;
            }
        } catch (IllegalArgumentException e) {
            // answered below
        }
        throw ApiException.badRequest("The cursor is not valid for this list; start again from the first page");
    }

    // ---- writes --------------------------------------------------------------------------------------------------

    /** Writes a new batch; completes with it once this view holds it. */
    public Mono<Batch> create(BatchRecord.Definition definition) {
        return write(definition).then(Mono.fromSupplier(() -> batches.get(definition.batchId())));
    }

    /** Writes a stop request; completes once this view holds it. */
    public Mono<Void> stop(BatchRecord.Stop stop) {
        return write(stop);
    }

    private Mono<Void> write(BatchRecord record) {
        return Mono.defer(() -> Mono.fromFuture(writer.send(record).thenCompose(this::applied), false))
                .timeout(gateway.replyTimeout())
                .onErrorMap(e -> !(e instanceof ApiException),
                        e -> ApiException.unavailable("The batch could not be saved; retry later"));
    }

    // ---- lifecycle -----------------------------------------------------------------------------------------------

    @Override
    protected void started() {
        writer = new BatchWriter(kafka, gateway.instanceId() + "-batches");
    }

    @Override
    protected void stopping() {
        writer.close();
    }
}
