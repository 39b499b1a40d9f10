package io.orderflow.standalone;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.events.OrderUpdate;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.topics.Topics;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.angus.mail.smtp.SMTPTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The email intake benchmark, by hand only: it measures and prints, and asserts nothing about speed.
 *
 * <pre>
 * ./mvnw -B -q -DskipTests install
 * ./mvnw -B -pl standalone test -Dtest=MailIntakeBenchmark -Dorderflow.bench=true \
 *     [-Dorderflow.bench.mails=500] [-Dorderflow.bench.concurrency=8]
 * </pre>
 *
 * It starts the standalone system in this JVM (in-process broker, replies on, through a GreenMail relay) and sends
 * {@code mails} purchase requests to {@code purchasing@} over SMTP, each on its own connection, from
 * {@code concurrency} relay threads. Every mail is a small request (2 x PAPER-A4, 1 x TONER-K, under the approval
 * limit), so each order runs extract, pricing, tax, policy, reserve, invoice to {@code completed}. It prints mails/s
 * accepted (each 250 means the processor has recorded the order), mails/s to completed (seen on
 * {@code order-updates}), and the SMTP answer time percentiles.
 */
@EnabledIfSystemProperty(named = "orderflow.bench", matches = "true")
class MailIntakeBenchmark {

    @Test
    void mailsPerSecond() throws Exception {
        int mails = Integer.getInteger("orderflow.bench.mails", 500);
        int concurrency = Integer.getInteger("orderflow.bench.concurrency", 8);
        GreenMail relay = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        relay.start();
        System.setProperty("INTAKE_RELAY_HOST", "127.0.0.1");
        System.setProperty("INTAKE_RELAY_PORT", String.valueOf(relay.getSmtp().getPort()));
        try (StandaloneSystem system = StandaloneSystem.start(new StandaloneSettings(0,
                TestKafka.uniqueStateDir("mail-benchmark"), Optional.empty(), 0));
             Completed completed = new Completed(system.bootstrapServers())) {
            run(system.intakePort(), completed, Math.min(50, mails), concurrency, false); // warm-up
            run(system.intakePort(), completed, mails, concurrency, true);
            System.out.printf("replies received by the relay: %d%n", relay.getReceivedMessages().length);
        } finally {
            relay.stop();
            System.clearProperty("INTAKE_RELAY_HOST");
            System.clearProperty("INTAKE_RELAY_PORT");
        }
    }

    private static void run(int port, Completed completed, int mails, int concurrency, boolean print)
            throws Exception {
        List<Long> answerMillis = Collections.synchronizedList(new ArrayList<>());
        Set<String> accepted = ConcurrentHashMap.newKeySet();
        AtomicInteger refused = new AtomicInteger();
        long start = System.nanoTime();
        try (ExecutorService pool = Executors.newFixedThreadPool(concurrency)) {
            List<Future<?>> sends = new ArrayList<>();
            for (int i = 0; i < mails; i++) {
                sends.add(pool.submit(() -> {
                    long sent = System.nanoTime();
                    String answer = send(port);
                    answerMillis.add((System.nanoTime() - sent) / 1_000_000);
                    if (answer.startsWith("250 2.0.0 Accepted: order ")) {
                        accepted.add(answer.substring(answer.indexOf("ord_")).strip());
                    } else {
                        refused.incrementAndGet();
                    }
                }));
            }
            for (Future<?> send : sends) {
                send.get();
            }
        }
        double acceptedSeconds = (System.nanoTime() - start) / 1e9;
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (!completed.ids.containsAll(accepted) && System.nanoTime() < deadline) {
            completed.poll();
        }
        double completedSeconds = (System.nanoTime() - start) / 1e9;
        if (print) {
            List<Long> sorted = answerMillis.stream().sorted().toList();
            // one println, so the service logs of this JVM cannot cut into the figures
            System.out.println(String.format("%nMAIL BENCHMARK mails: %d sent, %d accepted, %d refused, %d completed%n"
                            + "MAIL BENCHMARK accepted: %.1f mails/s; to completed: %.1f mails/s%n"
                            + "MAIL BENCHMARK SMTP answer ms: p50 %d, p95 %d, p99 %d, max %d",
                    mails, accepted.size(), refused.get(), accepted.stream().filter(completed.ids::contains).count(),
                    accepted.size() / acceptedSeconds, accepted.size() / completedSeconds,
                    percentile(sorted, 50), percentile(sorted, 95), percentile(sorted, 99), sorted.getLast()));
        }
    }

    private static long percentile(List<Long> sorted, int p) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }

    private static String send(int port) {
        String raw = "Authentication-Results: mx.orderflow.local; dmarc=pass header.from=orderflow.example\r\n"
                + "From: ops@orderflow.example\r\nTo: purchasing@orderflow.example\r\nSubject: Refill\r\n"
                + "Message-ID: <" + UUID.randomUUID() + "@orderflow.example>\r\n\r\n"
                + "2 x PAPER-A4 Copy paper\r\n1 x TONER-K\r\n";
        Properties props = new Properties();
        props.put("mail.smtp.host", "127.0.0.1");
        props.put("mail.smtp.port", String.valueOf(port));
        Session session = Session.getInstance(props);
        try (SMTPTransport transport = (SMTPTransport) session.getTransport("smtp")) {
            transport.connect();
            transport.sendMessage(new MimeMessage(session, new ByteArrayInputStream(raw.getBytes(StandardCharsets.UTF_8))),
                    new Address[]{new InternetAddress("purchasing@orderflow.example")});
            return transport.getLastServerResponse().strip();
        } catch (MessagingException e) {
            return "failed: " + e.getMessage();
        }
    }

    /** The ids of orders seen {@code completed} on {@code order-updates}, read from the end as of the start. */
    private static final class Completed implements AutoCloseable {

        private final Set<String> ids = ConcurrentHashMap.newKeySet();
        private final KafkaConsumer<String, OrderUpdate> consumer;

        Completed(String bootstrapServers) {
            Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            consumer = new KafkaConsumer<>(props, Topics.ORDER_UPDATES.keySerde().deserializer(),
                    Topics.ORDER_UPDATES.valueSerde().deserializer());
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.ORDER_UPDATES.name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
        }

        void poll() {
            consumer.poll(Duration.ofMillis(200)).forEach(record -> {
                if (record.value() != null && record.value().status() == OrderStatus.COMPLETED) {
                    ids.add(record.key());
                }
            });
        }

        @Override
        public void close() {
            consumer.close();
        }
    }
}
