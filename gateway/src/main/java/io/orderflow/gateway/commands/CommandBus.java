package io.orderflow.gateway.commands;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.orderflow.gateway.GatewayProperties;
import io.orderflow.gateway.RandomIds;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.SocketBuffers;
import io.orderflow.kafka.TopicReader;
import io.orderflow.kafka.TopicReaderLifecycle;
import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.topics.Topics;
import java.time.Clock;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * Request/reply with the order's agent: sends a {@link CommandEnvelope} on {@code order-commands} (keyed by order id)
 * and completes with the {@link CommandReply} that comes back on {@code command-replies} keyed by this gateway's
 * instance id. One reader of {@code command-replies} serves every pending request of the instance.
 */
@Component
public class CommandBus extends TopicReaderLifecycle<String, CommandReply> {

    private static final Logger log = LoggerFactory.getLogger(CommandBus.class);

    private final GatewayProperties settings;
    private final Clock clock;
    private final KafkaSettings kafka;
    private volatile KafkaProducer<String, CommandEnvelope> producer;
    /**
     * The one thread that hands commands to the producer. A send from the event loops woke the producer's selector
     * under the selector's lock, which the producer's network thread takes on every wake-up: at 500 orders/s event
     * loops waited 1-45 ms for it some 25 times a second (JFR), and every request queued on such a loop with them.
     */
    private volatile ExecutorService sender;
    private final Map<String, CompletableFuture<CommandReply>> pending = new ConcurrentHashMap<>();
    /** The producer's own metrics as meters ({@code kafka.producer.*}), read at scrape time. */
    private final ObjectProvider<MeterRegistry> meters;
    private volatile KafkaClientMetrics producerMeters;
    private final CommandTrace trace;

    public CommandBus(KafkaSettings kafka, GatewayProperties settings, ObjectProvider<MeterRegistry> meters,
                      CommandTrace trace) {
        this.kafka = kafka;
        this.settings = settings;
        this.meters = meters;
        this.trace = trace;
        this.clock = Clock.systemUTC();
    }

    private KafkaProducer<String, CommandEnvelope> newProducer() {
        Properties props = new Properties();
        props.putAll(kafka.clientProperties());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        // Kafka's default: under load a request carries several commands, and the processor's consumer, which
        // wakes up for every request that lands on its partitions, fetches a few at a time instead of one.
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, io.orderflow.kafka.StreamsApp.COMPRESSION);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, settings.instanceId() + "-commands");
        props.putAll(SocketBuffers.client());
        return new KafkaProducer<>(props, Topics.ORDER_COMMANDS.keySerde().serializer(),
                Topics.ORDER_COMMANDS.valueSerde().serializer());
    }

    /**
     * Sends {@code command} and answers with its reply, or 503 when none arrives within the reply timeout. The record
     * carries the request's trace context ({@link CommandTrace}) in its {@code traceparent} header.
     */
    public Mono<CommandReply> send(OrderCommand command, Caller caller) {
        return Mono.deferContextual(context -> {
            String correlationId = RandomIds.uuid().toString();
            CompletableFuture<CommandReply> reply = new CompletableFuture<>();
            pending.put(correlationId, reply);
            CommandEnvelope envelope = new CommandEnvelope(correlationId, settings.instanceId(), clock.millis(),
                    caller, command);
            String traceparent = trace.traceparent(context);
            ProducerRecord<String, CommandEnvelope> record = new ProducerRecord<>(Topics.ORDER_COMMANDS.name(), null,
                    command.orderId(), envelope, TraceHeaders.of(traceparent));
            sender.execute(() -> {
                try (TraceHeaders.LogContext ignored = TraceHeaders.logContext(command.orderId(), traceparent)) {
                    log.debug("Sending {} for order {}", command.getClass().getSimpleName(), command.orderId());
                    producer.send(record, (metadata, error) -> {
                        if (error != null) {
                            notSent(command, traceparent, reply, error);
                        }
                    });
                } catch (RuntimeException e) {
                    notSent(command, traceparent, reply, e);
                }
            });
            return Mono.fromFuture(reply, false)
                    .timeout(settings.replyTimeout())
                    .onErrorMap(TimeoutException.class, e -> ApiException.unavailable(
                            "The order processor did not answer in time; the command may still apply, "
                                    + "so retry with an Idempotency-Key"))
                    .doFinally(signal -> pending.remove(correlationId));
        });
    }

    /** Commands this instance has sent and not yet had a reply or a timeout for. */
    public int awaitingReplies() {
        return pending.size();
    }

    private static void notSent(OrderCommand command, String traceparent, CompletableFuture<CommandReply> reply,
                                Throwable error) {
        try (TraceHeaders.LogContext ignored = TraceHeaders.logContext(command.orderId(), traceparent)) {
            log.warn("Could not send a command for {}", command.orderId(), error);
        }
        reply.completeExceptionally(ApiException.unavailable("The order processor could not be reached; retry later"));
    }

    private void onReply(ConsumerRecord<String, CommandReply> record) {
        if (!settings.instanceId().equals(record.key()) || record.value() == null) {
            return; // another gateway instance's reply
        }
        CompletableFuture<CommandReply> waiting = pending.remove(record.value().correlationId());
        if (waiting != null) {
            waiting.complete(record.value());
        }
    }

    /**
     * From the end: the replies to the commands this instance sends from now on. Replies are keyed by the instance id,
     * so only the partition of that key is read: with several gateways, each reads its own replies, not every one.
     */
    @Override
    protected TopicReader<String, CommandReply> newReader() {
        return new TopicReader<>(kafka, Topics.COMMAND_REPLIES, TopicReader.From.END, this::onReply)
                .onlyPartitionOf(Topics.COMMAND_REPLIES.keySerde().serializer()
                        .serialize(Topics.COMMAND_REPLIES.name(), settings.instanceId()));
    }

    @Override
    protected void started() {
        producer = newProducer();
        producerMeters = new KafkaClientMetrics(producer);
        meters.ifAvailable(producerMeters::bindTo);
        sender = Executors.newSingleThreadExecutor(Thread.ofPlatform().name("commands-sender").daemon().factory());
    }

    @Override
    protected void stopping() {
        sender.close();
        producerMeters.close();
        producer.close();
    }
}
