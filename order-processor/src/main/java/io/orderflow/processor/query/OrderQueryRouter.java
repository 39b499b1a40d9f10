package io.orderflow.processor.query;

import io.orderflow.internal.InternalToken;
import io.orderflow.processor.approvals.ApprovalIndex;
import io.orderflow.schemas.documents.Documents;
import io.orderflow.schemas.model.Incident;
import io.orderflow.processor.flows.PinnedFlows;
import io.orderflow.processor.index.OrderIndexReads;
import io.orderflow.processor.order.OrderState;
import io.orderflow.processor.order.StoredFlow;
import io.orderflow.processor.streams.LiveOrders;
import io.orderflow.processor.streams.OrderAgent;
import io.orderflow.processor.streams.OrderStreams;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderQueries;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.util.UriBuilder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.core.SerializableString;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Interactive-query routing, all in one place: an order is read where its key lives (found with
 * {@link KafkaStreams#queryMetadataForKey}) and forwarded there when that is another instance; lists are
 * scatter-gathered from every instance ({@code local=true} on the fan-out calls) and merged newest first.
 * While the instance is (re)balancing it answers 503 rather than waiting for metadata.
 */
@Component
public class OrderQueryRouter {

    private static final Logger log = LoggerFactory.getLogger(OrderQueryRouter.class);
    private static final Duration PEER_TIMEOUT = Duration.ofSeconds(5);
    private static final Comparator<JsonNode> NEWEST_FIRST = Comparator
            .comparingLong((JsonNode row) -> row.path("createdAt").asLong()).reversed()
            .thenComparing(row -> row.path("id").asString(""));

    private static final Serializer<String> KEYS = new StringSerializer();
    /**
     * Where index reads run: off the event loop, on a few threads of their own, so a slow read waits its turn there
     * rather than holding a thread that answers other requests. The stream threads never wait on a read.
     */
    private static final Scheduler READS = Schedulers.newBoundedElastic(4, 10_000, "index-reads", 60, true);
    private static final byte[] EMPTY_OBJECT = {'{', '}'};
    private static final Deserializer<OrderState> STATES = OrderAgent.STATES.deserializer();

    private final OrderStreams orderStreams;
    private final PinnedFlows flows;
    /** Calls to the other instances, with the internal token when one is set: they check it as the gateway's. */
    private final WebClient http;
    /**
     * The JSON of each pinned version a view has shown, by {@code flowId@version}: published versions never change,
     * and every read of an order copies its flow's JSON from here. As many entries as versions orders are pinned to.
     */
    private final Map<String, SerializableString> flowJson = new ConcurrentHashMap<>();

    public OrderQueryRouter(OrderStreams orderStreams, PinnedFlows flows, InternalToken token) {
        this.orderStreams = orderStreams;
        this.flows = flows;
        this.http = WebClient.builder().defaultHeaders(token::addTo).build();
    }

    /**
     * The order's live state, from this instance or forwarded to the owner of its key. An order one of this
     * instance's tasks wrote a moment ago is answered from {@link LiveOrders}, without asking Kafka Streams anything;
     * only for others is the key's owner looked up, and only the store of the key's partition read. A read of all
     * local stores asked each one in turn and waited for each one's lock, which its stream thread holds while it
     * writes.
     */
    public Mono<ResponseEntity<byte[]>> order(String orderId, boolean local) {
        byte[] latest = orderStreams.live().latest(orderId);
        if (latest != null) {
            return Mono.fromCallable(() -> view(latest))
                    .onErrorResume(InvalidStateStoreException.class, e -> Mono.just(unavailable()));
        }
        KafkaStreams streams = orderStreams.streams().orElse(null);
        if (streams == null || !streams.state().isRunningOrRebalancing()) {
            return Mono.just(unavailable());
        }
        KeyQueryMetadata owner = streams.queryMetadataForKey(OrderAgent.ORDERS, orderId, KEYS);
        if (owner == null || owner == KeyQueryMetadata.NOT_AVAILABLE) {
            return Mono.just(unavailable());
        }
        if (!local && !owner.activeHost().equals(orderStreams.self())) {
            return forward(owner.activeHost(), b -> b.path(OrderQueries.ORDER).queryParam(OrderQueries.LOCAL, true)
                    .build(orderId));
        }
        return Mono.fromCallable(() -> {
            byte[] stored = this.<byte[]>store(streams, OrderAgent.ORDERS, owner.partition()).get(orderId);
            if (stored != null) {
                return view(stored);
            }
            Long archivedAt = this.<Long>store(streams, OrderAgent.ARCHIVED, owner.partition()).get(orderId);
            return json(HttpStatus.NOT_FOUND, error(archivedAt == null ? "Order " + orderId + " not found"
                    : "Order " + orderId + " was archived at " + java.time.Instant.ofEpochMilli(archivedAt)
                    + ", when its retention after it ended ran out; its final state is on the "
                    + io.orderflow.schemas.topics.Topics.ORDERS_ARCHIVE.name() + " topic"));
        }).subscribeOn(READS).onErrorResume(InvalidStateStoreException.class, e -> Mono.just(unavailable()));
    }

    /** The view of a state as the orders store holds it. */
    private ResponseEntity<byte[]> view(byte[] stored) {
        return view(STATES.deserialize(OrderAgent.ORDERS, stored));
    }

    /**
     * The order's view with its pinned flow's whole graph, from the flows view; a state stored before the graph was
     * kept as a reference shows its own. 503 while the flows view does not have the version yet (just after start).
     */
    private ResponseEntity<byte[]> view(OrderState stored) {
        OrderState state = withDocumentText(stored);
        FlowVersion pinned = state.flow();
        if (!StoredFlow.isSlim(pinned)) {
            return shown(state, OrderViews.write(OrderViews.of(state, pinned)));
        }
        return flows.version(pinned.flowId(), pinned.version())
                .map(flow -> shown(state, OrderViews.write(OrderViews.of(state, flow),
                        flowJson.computeIfAbsent(flow.flowId() + "@" + flow.version(),
                                key -> OrderViews.flowJson(flow)))))
                .orElseGet(() -> json(HttpStatus.SERVICE_UNAVAILABLE,
                        error("The flows are still loading; retry shortly")));
    }

    /**
     * The view's answer, with the state's version as its {@code ETag}: the gateway answers it as it is and compares
     * it with {@code If-None-Match} and {@code minVersion} without decoding the body.
     */
    private static ResponseEntity<byte[]> shown(OrderState state, byte[] view) {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON)
                .eTag(OrderQueries.etag(state.version())).body(view);
    }

    /**
     * The state with its order's document text in place of the reference, as the start request gave it: the text
     * lives in the documents store of the order's own task, on this instance.
     */
    private OrderState withDocumentText(OrderState state) {
        if (!(state.order() instanceof ObjectNode order) || !order.hasNonNull(Documents.REF_FIELD)) {
            return state;
        }
        KafkaStreams streams = orderStreams.streams().orElseThrow();
        String text = this.<String>store(streams, OrderAgent.DOCUMENTS).get(order.get(Documents.REF_FIELD).asString());
        ObjectNode shown = order.deepCopy();
        shown.remove(Documents.REF_FIELD);
        if (text != null) {
            shown.put(Documents.TEXT_FIELD, text);
        }
        return state.edit().order(shown).build();
    }

    /**
     * A page of index rows, newest first by creation or by last change, filtered by type, status, {@code q} and the
     * creation range; at most the query's limit, with {@code next} when more follow. Each instance reads only its page
     * from its index ({@link OrderIndexReads}). 400 for a cursor this service did not write.
     */
    public Mono<ResponseEntity<byte[]>> orders(OrderQueries.ListQuery query, boolean local) {
        return orders(query, local, false);
    }

    /**
     * {@link #orders(OrderQueries.ListQuery, boolean)}, with the next page's cursor in the
     * {@value OrderQueries#NEXT_HEADER} header instead of the body when {@code cursorInHeader}: the body is then the
     * contract's {@code {orders}} as it stands, for the gateway to pass on unread.
     */
    public Mono<ResponseEntity<byte[]>> orders(OrderQueries.ListQuery query, boolean local, boolean cursorInHeader) {
        Pages.Order order = query.byUpdate() ? Pages.UPDATED : Pages.CREATED;
        Pages.Position after;
        try {
            after = query.cursor() == null ? null : Pages.position(order, query.cursor());
        } catch (Pages.BadCursor e) {
            return Mono.just(json(HttpStatus.BAD_REQUEST, error(e.getMessage())));
        }
        return gatherPages(OrderQueries.ORDER_ROWS, order, query.limit(), local, cursorInHeader,
                streams -> listPage(partitions(streams, OrderAgent.INDEX), query, after), peerOrders(query));
    }

    /** This instance's page of the list after {@code after} (null: the first), from its partitions' index stores. */
    public static Pages.Answer listPage(List<ReadOnlyKeyValueStore<String, byte[]>> stores,
                                       OrderQueries.ListQuery query, Pages.Position after) {
        OrderIndexReads.Page page = OrderIndexReads.page(stores, query,
                after == null ? null : new OrderIndexReads.Position(after.number(), after.id()));
        return new Pages.Answer(page.rows(),
                page.next() == null ? null : new Pages.Position(page.next().time(), page.next().id()));
    }

    /**
     * The list query as the other instances are asked it. The filters go in as URI variables, so they are encoded
     * whole: a literal {@code q} of {@code jane+shop} would reach a peer as {@code jane shop}, and one with a brace
     * would not build at all.
     */
    static Function<UriBuilder, URI> peerOrders(OrderQueries.ListQuery query) {
        return b -> {
            Map<String, Object> values = query.parameters();
            b.path(OrderQueries.ORDERS).queryParam(OrderQueries.LOCAL, true);
            values.keySet().forEach(name -> b.queryParam(name, "{" + name + "}"));
            return b.build(values);
        };
    }

    /**
     * Orders by status over every instance's index, with the list's filters but its status:
     * {@code {counts: {<status>: n}, total: n, retentionMs}}, every status present (zero when none), with how long
     * ended orders are kept before they are archived (so counts cover that much of the past). Without {@code q} or a
     * creation range they are the counters the index keeps; otherwise counted from the index (see
     * {@link OrderIndexReads#counts}).
     */
    public Mono<ResponseEntity<byte[]>> counts(OrderQueries.ListQuery query, boolean local) {
        KafkaStreams streams = orderStreams.streams().orElse(null);
        if (streams == null || !streams.state().isRunningOrRebalancing()) {
            return Mono.just(unavailable());
        }
        Function<UriBuilder, URI> peerUri = b -> {
            Map<String, Object> values = query.parameters();
            values.remove(OrderQueries.STATUS);
            values.remove("limit");
            b.path(OrderQueries.ORDER_COUNTS).queryParam(OrderQueries.LOCAL, true);
            values.keySet().forEach(name -> b.queryParam(name, "{" + name + "}"));
            return b.build(values);
        };
        Mono<JsonNode> mine = Mono.fromCallable(() -> (JsonNode) OrderIndexReads.counts(
                partitions(streams, OrderAgent.INDEX), query)).subscribeOn(READS);
        Flux<JsonNode> theirs = Flux.fromIterable(local ? List.of() : peers(streams))
                .flatMap(peer -> http.get().uri(peerUri.andThen(uri -> at(peer, uri)))
                        .retrieve().bodyToMono(byte[].class).timeout(PEER_TIMEOUT)
                        .map(Json.MAPPER::readTree));
        return Flux.concat(mine, theirs).collectList()
                .map(answers -> {
                    Map<String, Long> all = new LinkedHashMap<>();
                    boolean partial = false;
                    for (JsonNode answer : answers) {
                        answer.path("counts").properties().forEach(e ->
                                all.merge(e.getKey(), e.getValue().asLong(), Long::sum));
                        partial |= answer.path("partial").asBoolean(false);
                    }
                    ObjectNode body = Json.object();
                    ObjectNode counts = body.putObject("counts");
                    all.forEach(counts::put);
                    body.put("total", all.values().stream().mapToLong(Long::longValue).sum());
                    if (partial) {
                        body.put("partial", true);
                    }
                    body.put("retentionMs", orderStreams.orderRetention().toMillis());
                    return json(HttpStatus.OK, body);
                })
                .onErrorResume(InvalidStateStoreException.class, e -> Mono.just(unavailable()))
                .onErrorResume(e -> {
                    log.warn("Could not gather the counts", e);
                    return Mono.just(unavailable());
                });
    }

    /**
     * A page of the approvals inbox by status ({@code all} for every row) and assignee (case-insensitive; null or blank
     * for anyone): soonest deadline first, then oldest; with {@code next} when more follow.
     */
    public Mono<ResponseEntity<byte[]>> approvals(String status, String assignee, String cursor, boolean local) {
        String wanted = status == null || status.isBlank() ? "all" : status;
        Pages.Position after;
        try {
            after = cursor == null ? null : Pages.position(APPROVALS_BY_DEADLINE, cursor);
        } catch (Pages.BadCursor e) {
            return Mono.just(json(HttpStatus.BAD_REQUEST, error(e.getMessage())));
        }
        return gatherPages(OrderQueries.APPROVAL_ROWS, APPROVALS_BY_DEADLINE, OrderQueries.APPROVALS_PAGE, local, false,
                streams -> inboxPage(partitions(streams, OrderAgent.APPROVALS), wanted, assignee, after),
                b -> {
                    b.path(OrderQueries.APPROVALS).queryParam(OrderQueries.LOCAL, true)
                            .queryParam(OrderQueries.STATUS, "{status}");
                    Map<String, Object> values = new LinkedHashMap<>();
                    values.put(OrderQueries.STATUS, wanted);
                    if (assignee != null && !assignee.isBlank()) {
                        b.queryParam("assignee", "{assignee}");
                        values.put("assignee", assignee);
                    }
                    if (cursor != null) {
                        b.queryParam("cursor", "{cursor}");
                        values.put("cursor", cursor);
                    }
                    return b.build(values);
                });
    }

    /** This instance's page of the approvals inbox after {@code after} (null: the first). */
    public static Pages.Answer inboxPage(List<ReadOnlyKeyValueStore<String, byte[]>> stores, String status,
                                         String assignee, Pages.Position after) {
        ApprovalIndex.Page page = ApprovalIndex.page(stores, status, assignee,
                after == null ? null : new ApprovalIndex.Position(after.number(), after.id()),
                OrderQueries.APPROVALS_PAGE);
        return new Pages.Answer(page.rows(),
                page.next() == null ? null : new Pages.Position(page.next().deadline(), page.next().key()));
    }

    /** Approval rows by deadline, soonest first; a row without one (stored before deadlines were kept) last. */
    public static final Pages.Order APPROVALS_BY_DEADLINE = new Pages.Order("deadline",
            row -> row.hasNonNull("deadline") ? row.get("deadline").asLong() : Long.MAX_VALUE, false,
            row -> row.path("orderId").asString("") + "|" + row.path("nodeId").asString(""));

    /** Every incident, newest first. */
    public Mono<ResponseEntity<byte[]>> incidents(boolean local) {
        return gather(OrderQueries.INCIDENT_ROWS, Integer.MAX_VALUE, local,
                streams -> rows(this.<Incident>store(streams, OrderAgent.INCIDENTS), row -> true, Incident::listed),
                b -> b.path(OrderQueries.INCIDENTS).queryParam(OrderQueries.LOCAL, true).build());
    }

    /**
     * One page from every instance: this one's page, read off the event loop, and each other's ({@code local=true}),
     * merged by {@link Pages#merge}. 503 while the stores cannot be queried or an instance does not answer.
     */
    private Mono<ResponseEntity<byte[]>> gatherPages(String field, Pages.Order order, int limit, boolean local,
                                                     boolean cursorInHeader,
                                                     Function<KafkaStreams, Pages.Answer> localPage,
                                                     Function<UriBuilder, URI> peerUri) {
        KafkaStreams streams = orderStreams.streams().orElse(null);
        if (streams == null || !streams.state().isRunningOrRebalancing()) {
            return Mono.just(unavailable());
        }
        Mono<Pages.Answer> mine = Mono.fromCallable(() -> localPage.apply(streams)).subscribeOn(READS);
        Flux<Pages.Answer> theirs = Flux.fromIterable(local ? List.of() : peers(streams))
                .flatMap(peer -> http.get().uri(peerUri.andThen(uri -> at(peer, uri)))
                        .retrieve().bodyToMono(byte[].class).timeout(PEER_TIMEOUT)
                        .map(body -> answer(field, order, Json.MAPPER.readTree(body))));
        return Flux.concat(mine, theirs).collectList()
                .map(answers -> {
                    ObjectNode page = Pages.merge(field, answers, order, limit);
                    if (!cursorInHeader || !page.has(OrderQueries.NEXT)) {
                        return json(HttpStatus.OK, page);
                    }
                    String next = page.remove(OrderQueries.NEXT).asString();
                    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON)
                            .header(OrderQueries.NEXT_HEADER, next).body(Json.MAPPER.writeValueAsBytes(page));
                })
                .onErrorResume(InvalidStateStoreException.class, e -> {
                    log.info("Stores not queryable yet: {}", e.getMessage());
                    return Mono.just(unavailable());
                })
                .onErrorResume(e -> {
                    log.warn("Could not gather {} from the other instances", field, e);
                    return Mono.just(unavailable());
                });
    }

    /** Another instance's page as it answered it. */
    private static Pages.Answer answer(String field, Pages.Order order, JsonNode body) {
        List<JsonNode> rows = new ArrayList<>();
        body.path(field).forEach(rows::add);
        String next = body.path(OrderQueries.NEXT).asString(null);
        return new Pages.Answer(rows, next == null ? null : Pages.position(order, next));
    }

    /**
     * The stores of {@code name} of this instance's active tasks, one per partition: the task's own store while its
     * processor is open ({@link LiveOrders#store}), else the interactive query's.
     */
    private List<ReadOnlyKeyValueStore<String, byte[]>> partitions(KafkaStreams streams, String name) {
        List<ReadOnlyKeyValueStore<String, byte[]>> stores = new ArrayList<>();
        streams.metadataForLocalThreads().forEach(thread -> thread.activeTasks().forEach(task -> {
            int partition = task.taskId().partition();
            ReadOnlyKeyValueStore<String, byte[]> own = orderStreams.live().store(partition, name);
            stores.add(own != null ? own : this.<byte[]>store(streams, name, partition));
        }));
        return stores;
    }

    /** Every instance's rows of {@code field}: this one's and each other's ({@code local=true}), newest first. */
    private Mono<ResponseEntity<byte[]>> gather(String field, int limit, boolean local,
                                                Function<KafkaStreams, List<JsonNode>> localRows,
                                                Function<UriBuilder, URI> peerUri) {
        return gatherAnswers(field, local, localRows, peerUri, (mine, answers) -> {
            List<JsonNode> all = new ArrayList<>(mine);
            answers.forEach(answer -> answer.path(field).forEach(all::add));
            return merged(field, all, limit);
        });
    }

    /**
     * This instance's rows and the other instances' answers to the same query, merged into the body by {@code merge};
     * 503 while the stores cannot be queried or an instance does not answer.
     */
    private Mono<ResponseEntity<byte[]>> gatherAnswers(String field, boolean local,
                                                       Function<KafkaStreams, List<JsonNode>> localRows,
                                                       Function<UriBuilder, URI> peerUri,
                                                       BiFunction<List<JsonNode>, List<JsonNode>, JsonNode> merge) {
        KafkaStreams streams = orderStreams.streams().orElse(null);
        if (streams == null || !streams.state().isRunningOrRebalancing()) {
            return Mono.just(unavailable());
        }
        List<JsonNode> mine;
        try {
            mine = localRows.apply(streams);
        } catch (InvalidStateStoreException e) {
            log.info("Stores not queryable yet: {}", e.getMessage());
            return Mono.just(unavailable());
        }
        return Flux.fromIterable(local ? List.of() : peers(streams))
                .flatMap(peer -> http.get().uri(peerUri.andThen(uri -> at(peer, uri)))
                        .retrieve().bodyToMono(byte[].class).timeout(PEER_TIMEOUT)
                        .map(Json.MAPPER::readTree))
                .collectList()
                .map(answers -> json(HttpStatus.OK, merge.apply(mine, answers)))
                .onErrorResume(e -> {
                    log.warn("Could not gather {} from the other instances", field, e);
                    return Mono.just(unavailable());
                });
    }

    private List<HostInfo> peers(KafkaStreams streams) {
        return streams.metadataForAllStreamsClients().stream().map(StreamsMetadata::hostInfo)
                .filter(host -> !host.equals(orderStreams.self())).distinct().toList();
    }

    /** The answer body {@code { <field>: [...] }}: every instance's rows merged newest first, at most {@code limit}. */
    public static ObjectNode merged(String field, List<JsonNode> rows, int limit) {
        List<JsonNode> all = new ArrayList<>(rows);
        all.sort(NEWEST_FIRST);
        ObjectNode body = Json.object();
        ArrayNode out = body.putArray(field);
        all.stream().limit(Math.max(0, limit)).forEach(out::add);
        return body;
    }

    private static <V> List<JsonNode> rows(ReadOnlyKeyValueStore<String, V> store, Predicate<V> filter) {
        return rows(store, filter, value -> value);
    }

    /** {@link #rows(ReadOnlyKeyValueStore, Predicate)}, each row as {@code shown} makes it. */
    private static <V> List<JsonNode> rows(ReadOnlyKeyValueStore<String, V> store, Predicate<V> filter,
                                           java.util.function.Function<V, ?> shown) {
        List<JsonNode> rows = new ArrayList<>();
        try (KeyValueIterator<String, V> it = store.all()) {
            it.forEachRemaining(kv -> {
                if (filter.test(kv.value)) {
                    rows.add(Json.tree(shown.apply(kv.value)));
                }
            });
        }
        return rows;
    }

    private <V> ReadOnlyKeyValueStore<String, V> store(KafkaStreams streams, String name) {
        return streams.store(parameters(name));
    }

    /** The local store of one partition. */
    private <V> ReadOnlyKeyValueStore<String, V> store(KafkaStreams streams, String name, int partition) {
        return streams.store(this.<V>parameters(name).withPartition(partition));
    }

    private <V> StoreQueryParameters<ReadOnlyKeyValueStore<String, V>> parameters(String name) {
        return StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.keyValueStore());
    }

    private Mono<ResponseEntity<byte[]>> forward(HostInfo owner, Function<UriBuilder, URI> uri) {
        return http.get().uri(uri.andThen(u -> at(owner, u))).accept(MediaType.APPLICATION_JSON)
                .exchangeToMono(response -> response.bodyToMono(byte[].class).defaultIfEmpty(EMPTY_OBJECT)
                        .map(body -> {
                            ResponseEntity.BodyBuilder answer = ResponseEntity.status(response.statusCode())
                                    .contentType(MediaType.APPLICATION_JSON);
                            response.headers().header(HttpHeaders.ETAG).stream().findFirst()
                                    .ifPresent(answer::eTag);
                            return answer.body(body);
                        }))
                .timeout(PEER_TIMEOUT)
                .onErrorResume(e -> {
                    log.warn("Could not forward a query to {}:{}", owner.host(), owner.port(), e);
                    return Mono.just(unavailable());
                });
    }

    /** The same path and query, on another instance. */
    private static URI at(HostInfo host, URI relative) {
        return URI.create("http://" + host.host() + ":" + host.port() + relative.getRawPath()
                + (relative.getRawQuery() != null ? "?" + relative.getRawQuery() : ""));
    }

    private static ObjectNode error(String message) {
        return Json.object().put("error", message);
    }

    private static ResponseEntity<byte[]> unavailable() {
        return json(HttpStatus.SERVICE_UNAVAILABLE, error("The order processor is rebalancing; retry shortly"));
    }

    private static ResponseEntity<byte[]> json(HttpStatus status, JsonNode body) {
        return json(status, Json.MAPPER.writeValueAsBytes(body));
    }

    /** An answer with a body of UTF-8 JSON, written as it is (no re-encoding on the way out). */
    private static ResponseEntity<byte[]> json(HttpStatus status, byte[] body) {
        return ResponseEntity.status(status).contentType(MediaType.APPLICATION_JSON).body(body);
    }
}
