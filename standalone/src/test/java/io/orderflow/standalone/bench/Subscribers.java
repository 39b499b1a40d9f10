package io.orderflow.standalone.bench;

import io.orderflow.standalone.bench.Subscriber.Kind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The benchmark's webhook subscribers ({@code --subscribers}): one fast subscriber to every event
 * ({@code --subscribers=1}, or {@code --subscriber=true}), or four at once ({@code --subscribers=4}): the fast one,
 * one that answers after 2 s, one that answers 500, and one subscribed to {@code order.completed} only. Subscribed
 * before the warm-up, so that the dispatcher's code is as warm as the order path's. After the measured run it waits
 * for their deliveries (and the failing one's retries) and reports those of the measured orders, subscriber by
 * subscriber.
 */
final class Subscribers implements AutoCloseable {

    /** How long no new request may arrive before a subscriber's deliveries count as drained. */
    private static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** The longest wait for one subscriber's deliveries after the run. */
    private static final long DRAIN_ONE_NANOS = TimeUnit.MINUTES.toNanos(3);
    /**
     * The longest wait for four subscribers' deliveries: the failing one's retries come 10, 20, 40, 80 and 160 s after
     * the attempt before (310 s in all, not scaled), and the retry topics may be behind.
     */
    private static final long DRAIN_FOUR_NANOS = TimeUnit.MINUTES.toNanos(12);
    /** The failing subscriber is done when no retry has come for longer than the longest backoff, and then some. */
    private static final long FAILING_QUIET_NANOS = TimeUnit.SECONDS.toNanos(200);
    /** Attempts of a delivery that never succeeds: the first and the contract's 5 retries. */
    static final int ATTEMPTS = 6;
    private static final long FIRST_BACKOFF_SECONDS = 10;
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** When the wait after the run ended, and which subscribers were still receiving then. */
    record Drained(long at, List<Kind> stillArriving) {

        boolean quiet() {
            return stillArriving.isEmpty();
        }
    }

    private final List<Subscriber> subscribers;

    private Subscribers(List<Subscriber> subscribers) {
        this.subscribers = subscribers;
    }

    /** {@code count} subscribers (1 or 4) subscribed; null for 0. */
    static Subscribers subscribe(BenchHttp http, int count) {
        List<Kind> kinds = switch (count) {
            case 0 -> List.of();
            case 1 -> List.of(Kind.FAST);
            case 4 -> List.of(Kind.FAST, Kind.SLOW, Kind.FAILING, Kind.COMPLETED);
            default -> throw new IllegalArgumentException("--subscribers is 0, 1 or 4, not " + count);
        };
        if (kinds.isEmpty()) {
            return null;
        }
        List<Subscriber> subscribed = new ArrayList<>();
        try {
            for (Kind kind : kinds) {
                subscribed.add(Subscriber.subscribe(http, kind));
            }
        } catch (RuntimeException e) {
            subscribed.forEach(Subscriber::close);
            throw e;
        }
        return new Subscribers(subscribed);
    }

    private BenchReceiver receiver(Kind kind) {
        return subscribers.stream().filter(s -> s.kind() == kind).findFirst().orElseThrow().receiver();
    }

    /**
     * Waits until each subscriber's deliveries have stopped arriving (no request for 5 s) and, with four, until every
     * delivery of the measured orders to the failing one has had its {@value #ATTEMPTS} attempts (or none came for
     * 200 s); at most 3 minutes with one subscriber, 12 with four.
     */
    Drained drain(List<String> measuredIds) throws InterruptedException {
        Set<String> ids = copy(measuredIds);
        long start = System.nanoTime();
        long limit = subscribers.size() == 1 ? DRAIN_ONE_NANOS : DRAIN_FOUR_NANOS;
        Map<Kind, Long> counts = new LinkedHashMap<>();
        Map<Kind, Long> changed = new LinkedHashMap<>();
        subscribers.forEach(s -> {
            counts.put(s.kind(), s.receiver().requests());
            changed.put(s.kind(), start);
        });
        long reported = start;
        while (true) {
            long now = System.nanoTime();
            List<Kind> waiting = new ArrayList<>();
            for (Subscriber subscriber : subscribers) {
                Kind kind = subscriber.kind();
                long requests = subscriber.receiver().requests();
                if (requests != counts.get(kind)) {
                    counts.put(kind, requests);
                    changed.put(kind, now);
                }
                long quietFor = now - changed.get(kind);
                boolean done = kind == Kind.FAILING
                        ? quietFor >= FAILING_QUIET_NANOS || allAttempted(subscriber.receiver(), ids)
                        : quietFor >= QUIET_NANOS;
                if (!done) {
                    waiting.add(kind);
                }
            }
            if (waiting.isEmpty() || now - start > limit) {
                for (Subscriber subscriber : subscribers) {
                    System.out.printf("subscriber %s: %d requests received; %d orders measured%n",
                            subscriber.kind().label, subscriber.receiver().requests(), ids.size());
                }
                return new Drained(now, waiting);
            }
            if (subscribers.size() > 1 && now - reported > PROGRESS_NANOS) {
                reported = now;
                System.out.printf("  waiting %.0f s for the deliveries of %s%n", (now - start) / 1e9,
                        waiting.stream().map(k -> k.label).collect(Collectors.joining(", ")));
            }
            Thread.sleep(200);
        }
    }

    /** Whether every delivery of the measured orders that reached the failing subscriber had all its attempts. */
    private static boolean allAttempted(BenchReceiver receiver, Set<String> ids) {
        List<long[]> attempts = receiver.attemptsOf(ids);
        return !attempts.isEmpty() && attempts.stream().allMatch(a -> a.length >= ATTEMPTS);
    }

    /**
     * The deliveries of the measured orders, subscriber by subscriber: how many, how late after their event, the
     * fast one's last after the last order, the failing one's retries and their spacing, duplicates. Times are the
     * run's {@code System.nanoTime} values; {@code completed} is how many measured orders completed.
     */
    List<String> report(List<String> measuredIds, long started, long lastAccepted, long ended, int completed,
                        Drained drained) {
        Set<String> ids = copy(measuredIds);
        if (subscribers.size() == 1) {
            return reportOne(receiver(Kind.FAST), ids, started, lastAccepted, ended, drained);
        }
        List<String> lines = new ArrayList<>();
        lines.add("webhook deliveries, four subscribers at once (loopback receivers in the benchmark's JVM):");
        BenchReceiver fast = receiver(Kind.FAST);
        List<BenchReceiver.Receipt> fastReceipts = fast.receiptsOf(ids);
        for (Subscriber subscriber : subscribers) {
            Kind kind = subscriber.kind();
            BenchReceiver receiver = subscriber.receiver();
            List<BenchReceiver.Receipt> receipts = receiver.receiptsOf(ids);
            lines.add(String.format("  %s (%s)%s:", kind.label, kind.description,
                    drained.stillArriving().contains(kind) ? ", still receiving when the wait ended" : ""));
            switch (kind) {
                case FAST -> {
                    lines.add(String.format("    deliveries: %d for %d orders (%.2f each)", receipts.size(),
                            ids.size(), (double) receipts.size() / Math.max(1, ids.size())));
                    lines.add("    event -> received: " + lags(receipts));
                    if (!receipts.isEmpty()) {
                        long last = receipts.stream().mapToLong(BenchReceiver.Receipt::receivedNanos).max()
                                .orElseThrow();
                        lines.add(String.format("    last delivery %.1f s after the last order's answer (POST), %.1f s"
                                + " after the last order ended", (last - lastAccepted) / 1e9, (last - ended) / 1e9));
                    }
                }
                case SLOW -> {
                    lines.add(String.format("    deliveries: %d of the %d the fast one got for the same orders",
                            receipts.size(), fastReceipts.size()));
                    lines.add("    event -> received: " + lags(receipts));
                    lines.add(String.format("    requests: %d; 200s written 10 s or more after the attempt started"
                                    + " (the dispatcher may have stopped waiting, and retries): %d; answers the"
                                    + " connection was closed for: %d", receiver.requests(), receiver.lateAnswers(),
                            receiver.answersNotTaken()));
                }
                case FAILING -> {
                    List<long[]> attempts = receiver.attemptsOf(ids);
                    long requests = attempts.stream().mapToLong(a -> a.length).sum();
                    lines.add(String.format("    deliveries: %d of the %d the fast one got; retries: %d (%d requests);"
                                    + " more than %d attempts: %d", attempts.size(), fastReceipts.size(),
                            requests - attempts.size(), requests, ATTEMPTS,
                            attempts.stream().filter(a -> a.length > ATTEMPTS).count()));
                    lines.add("    attempts per delivery: " + attempts.stream()
                            .collect(Collectors.groupingBy(a -> a.length, TreeMap::new, Collectors.counting()))
                            .entrySet().stream().map(e -> e.getKey() + " x " + e.getValue())
                            .collect(Collectors.joining(", ")));
                    lines.add("    first attempt: event -> received: " + lags(receipts));
                    for (int retry = 1; retry < ATTEMPTS; retry++) {
                        lines.add(String.format("    retry %d after the attempt before (schedule %d s): %s", retry,
                                FIRST_BACKOFF_SECONDS << (retry - 1), gaps(attempts, retry)));
                    }
                }
                case COMPLETED -> {
                    long others = receipts.stream().filter(r -> !"order.completed".equals(r.event())).count();
                    lines.add(String.format("    deliveries: %d for %d completed orders; of other events: %d",
                            receipts.size(), completed, others));
                    lines.add("    event -> received: " + lags(receipts));
                }
            }
            lines.add(String.format("    duplicates: %d; bad signatures: %d of every 100th checked; unreadable: %d"
                            + " (of %d requests, the warm-up's included)", receiver.duplicates(),
                    receiver.badSignatures(), receiver.unreadable(), receiver.requests()));
        }
        return lines;
    }

    /** The single subscriber's report, as the benchmark has always printed it. */
    private static List<String> reportOne(BenchReceiver receiver, Set<String> ids, long started, long lastAccepted,
                                          long ended, Drained drained) {
        List<BenchReceiver.Receipt> receipts = receiver.receiptsOf(ids);
        List<String> lines = new ArrayList<>();
        lines.add("webhook deliveries (one subscriber to every event, a loopback receiver answering 200 at once):");
        if (receipts.isEmpty()) {
            lines.add("  none of the measured orders' deliveries arrived");
            return lines;
        }
        long last = receipts.stream().mapToLong(BenchReceiver.Receipt::receivedNanos).max().orElseThrow();
        long first = receipts.stream().mapToLong(BenchReceiver.Receipt::receivedNanos).min().orElseThrow();
        double seconds = (last - started) / 1e9;
        Map<Long, Integer> windows = new TreeMap<>();
        receipts.forEach(r -> windows.merge((r.receivedNanos() - started) / WINDOW_NANOS, 1, Integer::sum));
        int busiest = windows.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        lines.add(String.format("  delivered: %d for %d orders (%.2f each) in %.1f s from the run's start = %.0f"
                        + " deliveries/s; first to last %.1f s; busiest 5 s window %.0f/s", receipts.size(),
                ids.size(), (double) receipts.size() / ids.size(), seconds, receipts.size() / seconds,
                (last - first) / 1e9, busiest / (WINDOW_NANOS / 1e9)));
        long[] lags = receipts.stream().mapToLong(BenchReceiver.Receipt::lagMillis).sorted().toArray();
        lines.add(String.format("  event -> received: p50=%d ms p99=%d ms max=%d ms", lags[(lags.length - 1) / 2],
                lags[(int) Math.min(lags.length - 1, Math.ceil(0.99 * lags.length) - 1)], lags[lags.length - 1]));
        lines.add(String.format("  last delivery %.1f s after the last order's answer (POST), %.1f s after the last"
                + " order ended%s", (last - lastAccepted) / 1e9, (last - ended) / 1e9,
                drained.quiet() ? "" : "; still arriving when the wait ended"));
        lines.add(String.format("  duplicates: %d (of %d requests, the warm-up's included); bad signatures: %d of"
                        + " every 100th checked; unreadable: %d", receiver.duplicates(), receiver.requests(),
                receiver.badSignatures(), receiver.unreadable()));
        lines.add("  per 5 s window from the run's start: " + windows.values());
        return lines;
    }

    /** p50 / p99 / max of event -> received, in ms. */
    private static String lags(List<BenchReceiver.Receipt> receipts) {
        long[] lags = receipts.stream().mapToLong(BenchReceiver.Receipt::lagMillis).sorted().toArray();
        return lags.length == 0 ? "none arrived" : String.format("p50=%d ms p99=%d ms max=%d ms",
                quantile(lags, 0.50), quantile(lags, 0.99), lags[lags.length - 1]);
    }

    /** p50 / p99 / min / max, in seconds, of the wait before retry {@code retry} of the deliveries that had it. */
    private static String gaps(List<long[]> attempts, int retry) {
        long[] gaps = attempts.stream().filter(a -> a.length > retry)
                .mapToLong(a -> a[retry] - a[retry - 1]).sorted().toArray();
        return gaps.length == 0 ? "none came" : String.format("n=%d p50=%.1f s p99=%.1f s min=%.1f s max=%.1f s",
                gaps.length, quantile(gaps, 0.50) / 1e3, quantile(gaps, 0.99) / 1e3, gaps[0] / 1e3,
                gaps[gaps.length - 1] / 1e3);
    }

    private static long quantile(long[] sorted, double quantile) {
        return sorted[(int) Math.max(0, Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1))];
    }

    private static Set<String> copy(List<String> ids) {
        synchronized (ids) {
            return new HashSet<>(ids);
        }
    }

    @Override
    public void close() {
        subscribers.forEach(Subscriber::close);
    }
}
