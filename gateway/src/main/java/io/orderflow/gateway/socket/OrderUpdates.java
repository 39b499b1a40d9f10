package io.orderflow.gateway.socket;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.TopicReader;
import io.orderflow.kafka.TopicReaderLifecycle;
import io.orderflow.schemas.events.OrderUpdate;
import io.orderflow.schemas.topics.Topics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * The {@code order-updates} notices for the orders that have a socket open on this gateway instance, and for the list
 * sockets ({@link OrderListSocketHandler}), which want every order's. One reader per instance reads the topic from its
 * end (a socket wants what changes after it opened, and reads the state itself on connect); a notice nobody here
 * watches is dropped at once.
 */
@Component
public class OrderUpdates extends TopicReaderLifecycle<String, OrderUpdate> {

    /** The sockets of one order on this instance, and the sink they share. Counted under the map's lock. */
    private static final class Channel {
        final Sinks.Many<OrderUpdate> sink = Sinks.many().multicast().directBestEffort();
        int sockets;
    }

    private final KafkaSettings kafka;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    /** Every notice, for the list sockets; emitted only while one is open. */
    private final Sinks.Many<OrderUpdate> everyOrder = Sinks.many().multicast().directBestEffort();
    private final AtomicInteger listeners = new AtomicInteger();

    public OrderUpdates(KafkaSettings kafka) {
        this.kafka = kafka;
    }

    /**
     * The notices for {@code orderId} from subscription on. The subscriber is registered when this returns from
     * {@code subscribe}, so a state read started after subscribing misses no change.
     */
    public Flux<OrderUpdate> of(String orderId) {
        return Flux.using(() -> join(orderId), channel -> channel.sink.asFlux(), channel -> leave(orderId));
    }

    /** The notices of every order from subscription on (a list page's socket). */
    public Flux<OrderUpdate> ofEveryOrder() {
        return Flux.using(listeners::incrementAndGet, ignored -> everyOrder.asFlux(),
                ignored -> listeners.decrementAndGet());
    }

    /** How many list sockets listen here (for tests: a closed socket leaves nothing behind). */
    int listeners() {
        return listeners.get();
    }

    /** How many orders have sockets open here (for tests: a closed socket leaves nothing behind). */
    int watchedOrders() {
        return channels.size();
    }

    private Channel join(String orderId) {
        return channels.compute(orderId, (id, channel) -> {
            Channel joined = channel == null ? new Channel() : channel;
            joined.sockets++;
            return joined;
        });
    }

    private void leave(String orderId) {
        channels.computeIfPresent(orderId, (id, channel) -> --channel.sockets == 0 ? null : channel);
    }

    /** On the reader's thread, the only emitter, so the sinks never see concurrent emissions. */
    private void onUpdate(ConsumerRecord<String, OrderUpdate> record) {
        Channel channel = record.key() == null ? null : channels.get(record.key());
        if (channel != null && record.value() != null) {
            channel.sink.tryEmitNext(record.value());
        }
        if (listeners.get() > 0 && record.value() != null) {
            everyOrder.tryEmitNext(record.value());
        }
    }

    /** From the end: a socket shows the state it reads on connect, then the notices that come after it. */
    @Override
    protected TopicReader<String, OrderUpdate> newReader() {
        return new TopicReader<>(kafka, Topics.ORDER_UPDATES, TopicReader.From.END, this::onUpdate);
    }
}
