package io.orderflow.gateway.intake;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.orderflow.kafka.TopicReader;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import tools.jackson.databind.node.ObjectNode;

/**
 * TEST ONLY. A stand-in for the order-processor for commands sent by email intake (caller kind {@code mail}), on the
 * real broker: it decides starts by fingerprint as the processor does (201 new, 200 replayed, 422 another body), and
 * answers the live-state query with the order's status and the lines the Extract order node would have read.
 * Commands of other callers are left to whoever else answers them, and {@code FakeProcessor} leaves these to this
 * one: two answers to one command race, and the first one decides what the sender is told.
 */
final class MailProcessorFake implements AutoCloseable {

    private final Map<String, String> fingerprints = new ConcurrentHashMap<>();
    private final List<OrderCommand.StartOrder> started = new CopyOnWriteArrayList<>();
    private final List<CommandEnvelope> received = new CopyOnWriteArrayList<>();
    private final KafkaProducer<String, CommandReply> producer;
    private final TopicReader<String, CommandEnvelope> commands;
    private final HttpServer queries;

    MailProcessorFake(String bootstrapServers) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        producer = new KafkaProducer<>(props, Topics.COMMAND_REPLIES.keySerde().serializer(),
                Topics.COMMAND_REPLIES.valueSerde().serializer());
        commands = new TopicReader<>(bootstrapServers, Topics.ORDER_COMMANDS, TopicReader.From.END, this::decide);
        commands.start();
        try {
            queries = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        queries.createContext("/internal/orders/", this::state);
        queries.start();
    }

    String queryUrl() {
        return "http://127.0.0.1:" + queries.getAddress().getPort();
    }

    /** Every start command intake sent that started a new order. */
    List<OrderCommand.StartOrder> started() {
        return started;
    }

    /** Every command intake sent, new or repeated. */
    List<CommandEnvelope> received() {
        return received;
    }

    private void decide(ConsumerRecord<String, CommandEnvelope> record) {
        CommandEnvelope envelope = record.value();
        if (envelope == null || !"mail".equals(envelope.caller().kind())
                || !(envelope.command() instanceof OrderCommand.StartOrder start)) {
            return;
        }
        received.add(envelope);
        ObjectNode body = Json.object().put("orderId", start.orderId());
        String known = fingerprints.putIfAbsent(start.orderId(), start.fingerprint());
        int status;
        RejectionKind kind = null;
        if (known == null) {
            started.add(start);
            status = 201;
        } else if (known.equals(start.fingerprint())) {
            body.put("replayed", true);
            status = 200;
        } else {
            body = Json.object().put("error", "Idempotency-Key was already used with a different request body");
            status = 422;
            kind = RejectionKind.ALREADY_EXISTS;
        }
        producer.send(new ProducerRecord<>(Topics.COMMAND_REPLIES.name(), envelope.replyTo(),
                new CommandReply(envelope.correlationId(), start.orderId(), status, kind, body)));
    }

    private void state(HttpExchange exchange) throws IOException {
        String id = exchange.getRequestURI().getPath().substring("/internal/orders/".length());
        ObjectNode state = Json.object().put("orderId", id).put("status", "waiting").put("instanceId", id + ".1")
                .put("generation", 1);
        ObjectNode order = state.putObject("order").put("id", id);
        order.putArray("lines").addObject().put("sku", "WIDGET-1").put("name", "Blue widget").put("qty", 3);
        byte[] bytes = Json.MAPPER.writeValueAsBytes(fingerprints.containsKey(id) ? state
                : Json.object().put("error", "Order " + id + " not found"));
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(fingerprints.containsKey(id) ? 200 : 404, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Override
    public void close() {
        commands.close();
        producer.close();
        queries.stop(0);
    }
}
