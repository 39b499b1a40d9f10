package io.orderflow.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a Kafka Streams application does between its start and {@code RUNNING}, made visible: the progress of its
 * stores' restore ({@link #restoredRecords()}, {@link #totalRecords()}, and every {@link #EVERY} a line
 * {@code order-processor restoring: 41% (120,000 of 290,000 records)}), and, once its tasks have not started for
 * {@link #STALLED_AFTER}, a WARN line naming the partitions they wait for and why: a committed offset that an open
 * transaction keeps unstable (with that transaction's id, state and age), or the group's assignment.
 *
 * <p>The records are changelog offsets: a restore's total is its end offset less its start offset, transaction
 * markers included, so the restored count ends a little below it and is set to it when the store's restore ends.
 */
public final class StreamsProgress implements StateRestoreListener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StreamsProgress.class);
    static final Duration EVERY = Duration.ofSeconds(10);
    static final Duration STALLED_AFTER = Duration.ofSeconds(30);
    /**
     * How long tasks wait before what holds them is looked at and released when stale ({@link #releaseStale}): sooner
     * than the WARN line, since a restart held by a stale member would otherwise lose those seconds.
     */
    static final Duration RELEASE_AFTER = Duration.ofSeconds(10);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(2);
    private static final Set<TransactionState> OPEN = Set.of(TransactionState.ONGOING,
            TransactionState.PREPARE_ABORT, TransactionState.PREPARE_COMMIT);

    /** One store's restore from one changelog partition. */
    private static final class Restore {
        final long total;
        long restored;

        Restore(long total) {
            this.total = total;
        }
    }

    private final String service;
    private final Properties config;
    private final LongSupplier clock;
    private final Duration every;
    private final Duration stalledAfter;
    private final Duration releaseAfter;
    private final Map<String, Restore> restoring = new HashMap<>();
    private long restoredDone;
    private long totalDone;
    private KafkaStreams streams;
    private ScheduledExecutorService ticker;
    /** When the application last was {@code RUNNING}, or started; wall-clock milliseconds. */
    private volatile long runningAt;
    private long lastWarnAt;
    /** When what holds the tasks was last looked for and released if stale (once per stall); wall-clock ms. */
    private long releasedAt;

    /**
     * @param service the service's name, first word of the log lines
     * @param config  the application's configuration, for the admin client that finds what a stalled task waits for
     * @param clock   wall-clock milliseconds
     */
    public StreamsProgress(String service, Properties config, LongSupplier clock) {
        this(service, config, clock, EVERY, STALLED_AFTER);
    }

    /** With other intervals than {@link #EVERY} and {@link #STALLED_AFTER} (tests). */
    StreamsProgress(String service, Properties config, LongSupplier clock, Duration every, Duration stalledAfter) {
        this.service = service;
        this.config = config;
        this.clock = clock;
        this.every = every;
        this.stalledAfter = stalledAfter;
        this.releaseAfter = RELEASE_AFTER.compareTo(stalledAfter) < 0 ? RELEASE_AFTER : stalledAfter;
        this.runningAt = clock.getAsLong();
    }

    /** Watches {@code app} (before it starts): logs the progress and a stall every {@link #EVERY}. */
    void watch(KafkaStreams app) {
        this.streams = app;
        app.setGlobalStateRestoreListener(this);
        ticker = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, service + "-start-progress");
            thread.setDaemon(true);
            return thread;
        });
        ticker.scheduleWithFixedDelay(this::tick, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void onRestoreStart(TopicPartition partition, String store, long startingOffset,
                                            long endingOffset) {
        restoring.put(key(partition, store), new Restore(Math.max(0, endingOffset - startingOffset)));
    }

    @Override
    public synchronized void onBatchRestored(TopicPartition partition, String store, long batchEndOffset,
                                             long numRestored) {
        Restore restore = restoring.get(key(partition, store));
        if (restore != null) {
            restore.restored = Math.min(restore.total, restore.restored + numRestored);
        }
    }

    @Override
    public synchronized void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
        Restore restore = restoring.remove(key(partition, store));
        if (restore != null) {
            restoredDone += restore.total;
            totalDone += restore.total;
        }
    }

    @Override
    public synchronized void onRestoreSuspended(TopicPartition partition, String store, long totalRestored) {
        restoring.remove(key(partition, store));
    }

    /** Records restored since the application last was {@code RUNNING} (0 once it runs). */
    public synchronized long restoredRecords() {
        return restoredDone + restoring.values().stream().mapToLong(r -> r.restored).sum();
    }

    /** Records to restore since the application last was {@code RUNNING}, as far as known (0 once it runs). */
    public synchronized long totalRecords() {
        return totalDone + restoring.values().stream().mapToLong(r -> r.total).sum();
    }

    /** Whether a store is being restored. */
    public synchronized boolean restoring() {
        return !restoring.isEmpty();
    }

    /** The progress line: {@code order-processor restoring: 41% (120,000 of 290,000 records)}. */
    synchronized String progressLine() {
        long restored = restoredRecords();
        long total = totalRecords();
        long percent = total == 0 ? 100 : restored * 100 / total;
        return String.format(Locale.ROOT, "%s restoring: %d%% (%,d of %,d records)", service, percent, restored,
                total);
    }

    void tick() {
        try {
            KafkaStreams app = streams;
            if (app == null) {
                return;
            }
            long now = clock.getAsLong();
            if (app.state() == KafkaStreams.State.RUNNING) {
                synchronized (this) {
                    runningAt = now;
                    restoredDone = 0;
                    totalDone = 0;
                }
                return;
            }
            if (restoring()) {
                log.info(progressLine());
            }
            if (app.state().isRunningOrRebalancing() && !restoring()) {
                if (now - runningAt >= stalledAfter.toMillis() && now - lastWarnAt >= stalledAfter.toMillis()) {
                    lastWarnAt = now;
                    reportStall(app, now);
                } else if (releasedAt < runningAt && now - runningAt >= releaseAfter.toMillis()) {
                    releaseStale(app, now);
                }
            }
        } catch (RuntimeException e) {
            log.debug("{}: could not report the start's progress", service, e);
        }
    }

    /** What holds a start, as one look at the group and the partitions shows it. */
    private record Holding(Set<TopicPartition> assigned, List<TopicPartition> unstable,
                           List<MemberDescription> former) {
    }

    private Holding look(KafkaStreams app, Admin admin) {
        List<MemberDescription> former = formerMembers(app, admin,
                config.getProperty(StreamsConfig.APPLICATION_ID_CONFIG));
        Set<TopicPartition> assigned = assigned(app, admin);
        return new Holding(assigned, assigned.isEmpty() ? List.of() : unstableOffsets(admin, assigned), former);
    }

    /**
     * Logs what the stalled tasks wait for, and releases what holds them when that is stale and was not released yet in
     * this stall ({@link #releaseStale}). One admin client and one look at the group and the partitions for all of it.
     */
    private void reportStall(KafkaStreams app, long now) {
        try (Admin admin = Admin.create(adminConfig())) {
            Holding holding = look(app, admin);
            log.warn("{} has not started its tasks for {} s (state {}): {}", service, (now - runningAt) / 1000,
                    app.state(), why(admin, holding));
            if (releasedAt < runningAt) {
                release(admin, now, holding);
            }
        } catch (RuntimeException e) {
            log.warn("{} has not started its tasks for {} s (state {}); could not ask the cluster why: {}", service,
                    (now - runningAt) / 1000, app.state(), e.toString());
        }
    }

    /**
     * Once per stall, {@link #RELEASE_AFTER} into it: releases what holds the tasks when it is known to be stale, the
     * group's static members that are this process under an earlier instance id ({@link FormerMembers}). Committed
     * offsets that stay unstable are only reported: what a dead run left open is ended before the app starts ({@link
     * PreviousRun}), and once the app runs, an abort under its ids would fence its own producer while it works (its
     * offsets read unstable in every commit, so a look cannot tell a live transaction from a stale one).
     */
    private void releaseStale(KafkaStreams app, long now) {
        try (Admin admin = Admin.create(adminConfig())) {
            release(admin, now, look(app, admin));
        } catch (RuntimeException e) {
            log.debug("{}: could not look for what holds its tasks", service, e);
        }
    }

    private void release(Admin admin, long now, Holding holding) {
        releasedAt = now;
        String group = config.getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
        if (!holding.former().isEmpty()) {
            FormerMembers.remove(admin, group, holding.former());
        }
    }

    /** The group's static members that are this process under an earlier instance id ({@link FormerMembers}). */
    private List<MemberDescription> formerMembers(KafkaStreams app, Admin admin, String group) {
        Optional<String> instanceId = FormerMembers.instanceId(config);
        if (instanceId.isEmpty()) {
            return List.of();
        }
        Set<String> consumers = new HashSet<>();
        app.metadataForLocalThreads().forEach(thread -> consumers.add(thread.consumerClientId()));
        try {
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).all()
                    .get(ADMIN_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS).get(group);
            return FormerMembers.of(description.members(), consumers, instanceId.get());
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /** The partitions of the app's active tasks, from its threads or, while they initialise, from its group. */
    private Set<TopicPartition> assigned(KafkaStreams app, Admin admin) {
        Set<TopicPartition> assigned = new TreeSet<>(java.util.Comparator.comparing(TopicPartition::toString));
        Set<String> consumers = new HashSet<>();
        for (ThreadMetadata thread : app.metadataForLocalThreads()) {
            thread.activeTasks().forEach(task -> assigned.addAll(task.topicPartitions()));
            consumers.add(thread.consumerClientId());
        }
        if (assigned.isEmpty()) {
            // tasks still initialising are not in the threads' metadata yet: the group knows their partitions
            assigned.addAll(groupAssignment(admin, config.getProperty(StreamsConfig.APPLICATION_ID_CONFIG),
                    consumers));
        }
        return assigned;
    }

    /** Why the tasks of {@code app} have not started: the partitions and what they wait for. */
    public String whatItWaitsFor(KafkaStreams app) {
        try (Admin admin = Admin.create(adminConfig())) {
            return why(admin, look(app, admin));
        } catch (RuntimeException e) {
            return "could not ask the cluster why: " + e;
        }
    }

    private String why(Admin admin, Holding holding) {
        String group = config.getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
        if (!holding.former().isEmpty()) {
            return "the group " + group + " waits for "
                    + holding.former().stream().map(member -> member.groupInstanceId().orElseThrow()).toList()
                    + " to rejoin: this process under an earlier instance id (its data moved or its host was "
                    + "renamed), which will not rejoin";
        }
        if (holding.assigned().isEmpty()) {
            return "no partition assigned to it as far as its threads and the group " + group + " tell: waiting for "
                    + "the group to assign its tasks";
        }
        if (holding.unstable().isEmpty()) {
            return "partitions " + holding.assigned() + " assigned, their committed offsets readable; waiting for the "
                    + "stream thread to initialise them (transactions, stores)";
        }
        return "the committed offsets of " + holding.unstable() + " are unstable: waiting for open transactions to "
                + "end: " + openTransactions(admin);
    }

    /** The partitions the group assigned to this instance's consumers ({@code consumers}: their client ids). */
    private static Set<TopicPartition> groupAssignment(Admin admin, String group, Set<String> consumers) {
        try {
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).all()
                    .get(ADMIN_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS).get(group);
            Set<TopicPartition> partitions = new HashSet<>();
            for (MemberDescription member : description.members()) {
                if (consumers.contains(member.clientId())) {
                    partitions.addAll(member.assignment().topicPartitions());
                }
            }
            return partitions;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return Set.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Set.of();
        }
    }

    /**
     * The partitions of {@code assigned} whose committed offset cannot be read stable: the admin client leaves out of
     * its answer a partition the group coordinator answers {@code UNSTABLE_OFFSET_COMMIT} for.
     */
    private List<TopicPartition> unstableOffsets(Admin admin, Collection<TopicPartition> assigned) {
        String group = config.getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
        List<TopicPartition> unstable = new ArrayList<>(assigned);
        try {
            unstable.removeAll(admin.listConsumerGroupOffsets(Map.of(group, new ListConsumerGroupOffsetsSpec()
                                    .topicPartitions(List.copyOf(assigned))),
                            new ListConsumerGroupOffsetsOptions().requireStable(true)
                                    .timeoutMs((int) ADMIN_TIMEOUT.toMillis()))
                    .partitionsToOffsetAndMetadata(group).get(ADMIN_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS)
                    .keySet());
            return unstable;
        } catch (ExecutionException | TimeoutException e) {
            return unstable;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return unstable;
        }
    }

    /** The cluster's open transactions: id, state, age, timeout and the partitions they wrote. */
    private String openTransactions(Admin admin) {
        try {
            Collection<TransactionListing> listings = admin.listTransactions(new ListTransactionsOptions()
                    .filterStates(OPEN)).all().get(ADMIN_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
            if (listings.isEmpty()) {
                return "none listed";
            }
            Map<String, TransactionDescription> described = admin.describeTransactions(listings.stream()
                            .map(TransactionListing::transactionalId).toList()).all()
                    .get(ADMIN_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
            long now = clock.getAsLong();
            return described.entrySet().stream().map(e -> {
                TransactionDescription d = e.getValue();
                String age = d.transactionStartTimeMs().isPresent()
                        ? ((now - d.transactionStartTimeMs().getAsLong()) / 1000) + " s" : "?";
                return e.getKey() + " (" + d.state() + " for " + age + ", timeout " + d.transactionTimeoutMs()
                        + " ms, partitions " + d.topicPartitions() + ")";
            }).collect(Collectors.joining("; "));
        } catch (ExecutionException | TimeoutException e) {
            return "(could not list them: " + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
    }

    private Map<String, Object> adminConfig() {
        return StreamsApp.adminConfig(config, service + "-start-progress", ADMIN_TIMEOUT);
    }

    private static String key(TopicPartition partition, String store) {
        return store + "@" + partition;
    }

    @Override
    public void close() {
        if (ticker != null) {
            ticker.shutdownNow();
        }
    }
}
