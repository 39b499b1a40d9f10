package io.orderflow.gateway.auth;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.gateway.GatewayProperties;
import io.orderflow.kafka.CompactedTopicView;
import io.orderflow.kafka.SocketBuffers;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import io.orderflow.gateway.auth.Principals.ApiToken;
import io.orderflow.gateway.auth.Principals.AuditEntry;
import io.orderflow.gateway.auth.Principals.Person;
import io.orderflow.gateway.auth.Principals.Session;
import io.orderflow.gateway.auth.Principals.TokenName;
import io.orderflow.gateway.auth.Principals.TokenUse;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

/**
 * The gateway's view of the compacted {@code principals} topic: people, API tokens and sessions, read from the
 * beginning at start and kept up to date, so every gateway instance sees every principal (a revocation on one is seen
 * by all within the topic's latency). Writes go to the topic and complete once this instance's view holds them, so a
 * caller reads its own writes. Nothing about a principal lives only in memory.
 *
 * <p>The team's audit log lives here too, one record per change ({@code audit:<id>}, never rewritten, so compaction
 * keeps every entry), and so does when each token was last used ({@code used:<token id>}, written at most once per
 * {@link #USE_RESOLUTION} per token, not on every request).
 *
 * <p>A session that has ended (expired, or its person disabled or given a new password) is dropped from the
 * view and tombstoned on the topic by the sweep that runs, at most once per {@link #SESSION_SWEEP}, when a session
 * record arrives; an expired one read at start is not kept at all. So the sessions held in memory are those signed in
 * within the session lifetime, whatever the number that ever existed.
 */
@Component
public class PrincipalDirectory extends CompactedTopicView<String, JsonNode> {

    private static final Logger log = LoggerFactory.getLogger(PrincipalDirectory.class);
    private static final Duration LOAD_TIMEOUT = Duration.ofSeconds(10);

    /** How coarse a token's last-used time is: a use is written only when the last one noted is this old. */
    public static final Duration USE_RESOLUTION = Duration.ofMinutes(1);
    /** How often, at most, ended sessions are swept out of the view. */
    static final Duration SESSION_SWEEP = Duration.ofMinutes(1);
    /** How long a claim on a token name holds against a later one when no token of that name followed it. */
    static final Duration CLAIM_HOLD = Duration.ofMinutes(5);

    private final KafkaSettings kafka;
    private final GatewayProperties gateway;
    private final Clock clock;
    private volatile long lastSessionSweep;
    private final Map<String, Person> people = new ConcurrentHashMap<>();
    private final Map<String, ApiToken> tokens = new ConcurrentHashMap<>();
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final Map<String, TokenUse> uses = new ConcurrentHashMap<>();
    /** By name: the claim that holds it (the first read, unless it went stale). */
    private final Map<String, TokenName> tokenNames = new ConcurrentHashMap<>();
    /** By token id: when this instance last sent a use, so a burst of requests sends one before the topic answers. */
    private final Map<String, Long> usesSent = new ConcurrentHashMap<>();
    /** Newest first: ids sort by time. */
    private final ConcurrentSkipListMap<String, AuditEntry> audit =
            new ConcurrentSkipListMap<>(Comparator.reverseOrder());
    private volatile KafkaProducer<String, JsonNode> producer;

    public PrincipalDirectory(KafkaSettings kafka, GatewayProperties gateway, Clock clock) {
        super(kafka, Topics.PRINCIPALS);
        this.kafka = kafka;
        this.gateway = gateway;
        this.clock = clock;
        this.lastSessionSweep = clock.millis();
    }

    @Override
    protected void apply(String key, JsonNode value) {
        int colon = key.indexOf(':');
        String id = key.substring(colon + 1);
        switch (key.substring(0, Math.max(colon, 0))) {
            case "person" -> put(people, id, value, Person.class);
            case "token" -> put(tokens, id, value, ApiToken.class);
            case "session" -> {
                put(sessions, id, value, Session.class);
                Session session = sessions.get(id);
                if (session != null && ended(session, clock.millis())) {
                    sessions.remove(id); // read at start long after it expired: never kept
                }
                sweepSessions();
            }
            case "used" -> put(uses, id, value, TokenUse.class);
            case "tokenname" -> claim(id, value);
            case "audit" -> put(audit, id, value, AuditEntry.class);
            default -> log.warn("Ignoring a principals record with an unknown key kind");
        }
    }

    private static <T> void put(Map<String, T> map, String id, JsonNode value, Class<T> type) {
        if (value == null) {
            map.remove(id);
        } else {
            map.put(id, Json.MAPPER.treeToValue(value, type));
        }
    }

    private void claim(String name, JsonNode value) {
        if (value == null) {
            tokenNames.remove(name);
            return;
        }
        TokenName incoming = Json.MAPPER.treeToValue(value, TokenName.class);
        tokenNames.merge(name, incoming, (held, later) ->
                later.at() - held.at() >= CLAIM_HOLD.toMillis() ? later : held);
    }

    /** Completes once the view holds everything the topic held at start; 503 if that takes too long. */
    public Mono<Void> loaded() {
        return Mono.fromFuture(caughtUp(), false).timeout(LOAD_TIMEOUT)
                .onErrorMap(TimeoutException.class, e -> ApiException.unavailable("Principals are still loading"));
    }

    // ---- reads ---------------------------------------------------------------------------------------------------

    public Optional<Person> person(String id) {
        return Optional.ofNullable(people.get(id));
    }

    public Optional<Person> personByEmail(String email) {
        String wanted = email.toLowerCase(Locale.ROOT);
        return people.values().stream().filter(p -> p.email().toLowerCase(Locale.ROOT).equals(wanted)).findFirst();
    }

    /** Everyone, in the order they were added. */
    public List<Person> people() {
        return people.values().stream().sorted(Comparator.comparingLong(Person::createdAt).thenComparing(Person::id))
                .toList();
    }

    public boolean hasPeople() {
        return !people.isEmpty();
    }

    public Optional<ApiToken> tokenByDigest(String digest) {
        return Optional.ofNullable(tokens.get(digest));
    }

    public Optional<ApiToken> token(String id) {
        return tokens.values().stream().filter(t -> t.id().equals(id)).findFirst();
    }

    /** Every token, revoked ones too, newest first. */
    public List<ApiToken> tokens() {
        return tokens.values().stream()
                .sorted(Comparator.comparingLong(ApiToken::createdAt).reversed().thenComparing(ApiToken::id)).toList();
    }

    public Optional<Session> session(String digest) {
        return Optional.ofNullable(sessions.get(digest));
    }

    /** How many sessions the view holds (for the sessions meter and tests of the bound). */
    public int sessionCount() {
        return sessions.size();
    }

    /**
     * Drops the sessions that have ended from the view and tombstones them on the topic, at most once per
     * {@link #SESSION_SWEEP}; runs on the reader's thread as session records arrive. Every instance sweeps: a
     * tombstone written twice is harmless.
     */
    private void sweepSessions() {
        long now = clock.millis();
        if (now - lastSessionSweep < SESSION_SWEEP.toMillis()) {
            return;
        }
        lastSessionSweep = now;
        KafkaProducer<String, JsonNode> writer = producer;
        sessions.values().removeIf(session -> {
            if (!ended(session, now)) {
                return false;
            }
            if (writer != null) {
                writer.send(new ProducerRecord<>(Topics.PRINCIPALS.name(), session.key(), null), (metadata, error) -> {
                    if (error != null) {
                        log.debug("Could not tombstone an ended session: {}", error.toString());
                    }
                });
            }
            return true;
        });
    }

    /**
     * Whether a session can never stand again: expired, or its person has a newer generation (disabled or given a new
     * password since). Only a newer generation counts, never an older one or a missing person: while the topic is
     * read at start a person's record may come after their session's. A shared-password session of an older password
     * is left to expire (the password may be set back).
     */
    private boolean ended(Session session, long now) {
        if (now >= session.expiresAt()) {
            return true;
        }
        Person person = session.personId() == null ? null : people.get(session.personId());
        return person != null && person.generation() > session.generation();
    }

    /** When the token was last used, to within {@link #USE_RESOLUTION}; {@code null} if never. */
    public Long lastUsed(String tokenId) {
        TokenUse use = uses.get(tokenId);
        return use == null ? null : use.at();
    }

    /**
     * Up to {@code limit} audit entries, newest first, starting after the entry {@code after} (an id; {@code null}
     * for the newest).
     */
    public List<AuditEntry> audit(String after, int limit) {
        var entries = after == null ? audit.values() : audit.tailMap(after, false).values();
        return entries.stream().limit(limit).toList();
    }

    // ---- writes --------------------------------------------------------------------------------------------------

    public Mono<Void> save(Person person) {
        return write(person.key(), Json.tree(person));
    }

    public Mono<Void> save(ApiToken token) {
        return write(token.key(), Json.tree(token));
    }

    public Mono<Void> save(Session session) {
        return write(session.key(), Json.tree(session));
    }

    /**
     * Claims {@code name} for the token {@code tokenId}: true once the claim is in the view and is the one that holds
     * the name, false when another claim was read first (a creation of the same name at the same instant, here or on
     * another instance).
     */
    public Mono<Boolean> claimTokenName(String name, String tokenId) {
        TokenName claim = new TokenName(name, tokenId, clock.millis());
        return write(claim.key(), Json.tree(claim)).then(Mono.fromSupplier(() -> {
            TokenName holder = tokenNames.get(name);
            return holder != null && holder.tokenId().equals(tokenId);
        }));
    }

    public Mono<Void> endSession(String digest) {
        return write(Session.key(digest), null);
    }

    public Mono<Void> record(AuditEntry entry) {
        return write(entry.key(), Json.tree(entry));
    }

    /**
     * Notes that a token was used at {@code now}, unless a use within {@link #USE_RESOLUTION} is already noted (by any
     * instance) or on its way from this one: one write per token per minute at most, whatever the request rate. The
     * write is not waited for; if it fails, the next use after the resolution tries again.
     */
    public void noteUse(ApiToken token, long now) {
        Long noted = lastUsed(token.id());
        if (noted != null && now - noted < USE_RESOLUTION.toMillis()) {
            return;
        }
        Long sent = usesSent.get(token.id());
        if (sent != null && now - sent < USE_RESOLUTION.toMillis()) {
            return;
        }
        if (!(sent == null ? usesSent.putIfAbsent(token.id(), now) == null
                : usesSent.replace(token.id(), sent, now))) {
            return; // another request of this instance is noting it
        }
        TokenUse use = new TokenUse(token.id(), now);
        producer.send(new ProducerRecord<>(Topics.PRINCIPALS.name(), use.key(), Json.tree(use)), (metadata, error) -> {
            if (error != null) {
                log.warn("Could not note the use of token {}: {}", token.id(), error.toString());
                usesSent.remove(token.id(), now);
            }
        });
    }

    private Mono<Void> write(String key, JsonNode value) {
        return Mono.defer(() -> {
            CompletableFuture<RecordMetadata> sent = new CompletableFuture<>();
            producer.send(new ProducerRecord<>(Topics.PRINCIPALS.name(), key, value), (metadata, error) -> {
                if (error != null) {
                    sent.completeExceptionally(error);
                } else {
                    sent.complete(metadata);
                }
            });
            return Mono.fromFuture(sent.thenCompose(this::applied), false);
        }).timeout(gateway.replyTimeout()).onErrorMap(e -> !(e instanceof ApiException),
                e -> ApiException.unavailable("The team could not be saved; retry later"));
    }

    // ---- lifecycle -----------------------------------------------------------------------------------------------

    @Override
    protected void started() {
        Properties props = new Properties();
        props.putAll(kafka.clientProperties());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, gateway.instanceId() + "-principals");
        props.putAll(SocketBuffers.client());
        producer = new KafkaProducer<>(props, Topics.PRINCIPALS.keySerde().serializer(),
                Topics.PRINCIPALS.valueSerde().serializer());
    }

    @Override
    protected void stopping() {
        producer.close();
    }
}
