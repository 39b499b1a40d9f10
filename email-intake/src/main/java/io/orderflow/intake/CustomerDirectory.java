package io.orderflow.intake;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.CompactedTopicView;
import io.orderflow.kafka.SocketBuffers;
import io.orderflow.schemas.customers.Customer;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The gateway's view of the compacted {@code customers} topic (key: customer id), read from the beginning as
 * {@code flows} is. Once caught up it seeds the mock customers ({@code customers.json} beside this class) that the
 * topic does not have yet, so seeding is idempotent and never overwrites a customer someone changed.
 */
@Component
public class CustomerDirectory extends CompactedTopicView<String, Customer> {

    private static final Logger log = LoggerFactory.getLogger(CustomerDirectory.class);
    private static final Duration LOAD_TIMEOUT = Duration.ofSeconds(10);

    private final Map<String, Customer> customers = new ConcurrentHashMap<>();
    private final KafkaSettings kafka;
    /** Caught up with the topic and the missing mock customers written: only then is "not a customer" an answer. */
    private volatile CompletableFuture<Void> ready;

    public CustomerDirectory(KafkaSettings kafka) {
        super(kafka, Topics.CUSTOMERS);
        this.kafka = kafka;
    }

    /** The mock customers every system starts with. */
    public static List<Customer> seeded() {
        try (InputStream in = CustomerDirectory.class.getResourceAsStream("customers.json")) {
            return Arrays.asList(Json.MAPPER.readValue(in, Customer[].class));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The customer a sender belongs to: the one with this address, else the one whose company domain it is.
     *
     * @throws IntakeRefusal (temporary) while the directory is still loading
     */
    Optional<Customer> forSender(String address) throws IntakeRefusal {
        awaitLoaded();
        String domain = Addresses.domain(address);
        return customers.values().stream().filter(c -> c.emails().contains(address)).findFirst()
                .or(() -> customers.values().stream().filter(c -> c.domains().contains(domain)).findFirst());
    }

    private void awaitLoaded() throws IntakeRefusal {
        try {
            ready.get(LOAD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            throw IntakeRefusal.tryLater("The customer directory is still loading");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw IntakeRefusal.tryLater("The service is stopping");
        }
    }

    @Override
    protected void apply(String id, Customer customer) {
        if (customer == null) {
            customers.remove(id);
        } else {
            customers.put(id, normalized(customer));
        }
    }

    private static Customer normalized(Customer customer) {
        return new Customer(customer.id(), customer.name(),
                customer.emails().stream().map(Addresses::normalize).toList(),
                customer.domains().stream().map(d -> Addresses.normalize(d.startsWith("@") ? d.substring(1) : d))
                        .toList());
    }

    private void seedMissing() {
        List<Customer> missing = seeded().stream().filter(c -> !customers.containsKey(c.id())).toList();
        if (missing.isEmpty()) {
            return;
        }
        try (var producer = seedProducer(kafka)) {
            for (Customer customer : missing) {
                producer.send(new ProducerRecord<>(Topics.CUSTOMERS.name(), customer.id(), customer)).get();
                customers.putIfAbsent(customer.id(), normalized(customer));
            }
            log.info("Seeded customers {}", missing.stream().map(Customer::id).toList());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | RuntimeException e) {
            log.warn("Could not seed the customer directory", e);
        }
    }

    /**
     * The producer of the mock customers. Seeding runs on a common-pool thread, whose context class loader is the
     * system one: in the packaged jar that loader does not hold Kafka, and the producer could not load its metrics
     * reporter, so a new system started without its mock customers. Kafka's own loader is used instead.
     */
    static KafkaProducer<String, Customer> seedProducer(KafkaSettings kafka) {
        Properties props = new Properties();
        props.putAll(kafka.clientProperties());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.putAll(SocketBuffers.client());
        Thread thread = Thread.currentThread();
        ClassLoader context = thread.getContextClassLoader();
        thread.setContextClassLoader(KafkaProducer.class.getClassLoader());
        try {
            return new KafkaProducer<>(props, Topics.CUSTOMERS.keySerde().serializer(),
                    Topics.CUSTOMERS.valueSerde().serializer());
        } finally {
            thread.setContextClassLoader(context);
        }
    }

    /** Once caught up, the missing mock customers are written; the SMTP listener starts after this (phase 0). */
    @Override
    protected void started() {
        ready = caughtUp().thenRunAsync(this::seedMissing);
    }
}
