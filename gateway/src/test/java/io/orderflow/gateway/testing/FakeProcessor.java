package io.orderflow.gateway.testing;

import io.orderflow.kafka.TopicReader;
import io.orderflow.schemas.commands.BatchAction;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.events.OrderUpdate;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.ChatMessage;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.topics.Topics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import tools.jackson.databind.node.ObjectNode;

/**
 * TEST ONLY. A stand-in for the order-processor on the real broker, answering {@code order-commands} on
 * {@code command-replies} exactly as the cross-service contract says, so the gateway's tests do not depend on the
 * processor being written at the same time. It keeps orders in memory; the real end-to-end test uses the real one.
 * Commands sent by email intake (caller kind {@code mail}) are the intake tests' own fake's to answer: a fake that
 * outlives its test class shares the broker with theirs, and two answers to one command race.
 */
public final class FakeProcessor implements AutoCloseable {

    /** What the fake knows about one order. */
    public record FakeOrder(String orderId, String type, String fingerprint, String status, String waitingEvent,
                            String waitingApprovalNode, long createdAt) {

        FakeOrder withStatus(String newStatus) {
            return new FakeOrder(orderId, type, fingerprint, newStatus, null, null, createdAt);
        }
    }

    private final Map<String, FakeOrder> orders = new ConcurrentHashMap<>();
    private final List<CommandEnvelope> received = new CopyOnWriteArrayList<>();
    private final Set<String> silentOrders = ConcurrentHashMap.newKeySet();
    private final Map<String, List<ChatMessage>> chats = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> versions = new ConcurrentHashMap<>();
    /** By order: the batches that acted on it. */
    private final Map<String, Set<String>> batches = new ConcurrentHashMap<>();
    private static final Set<String> ENDED = Set.of("completed", "declined", "cancelled", "failed", "rolled_back");
    private final KafkaProducer<String, CommandReply> producer;
    private final KafkaProducer<String, OrderUpdate> notices;
    private final TopicReader<String, CommandEnvelope> commands;

    public FakeProcessor(String bootstrapServers) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        producer = new KafkaProducer<>(props, Topics.COMMAND_REPLIES.keySerde().serializer(),
                Topics.COMMAND_REPLIES.valueSerde().serializer());
        notices = new KafkaProducer<>(props, Topics.ORDER_UPDATES.keySerde().serializer(),
                Topics.ORDER_UPDATES.valueSerde().serializer());
        commands = new TopicReader<>(bootstrapServers, Topics.ORDER_COMMANDS, TopicReader.From.END, this::decide);
        commands.start();
    }

    public Map<String, FakeOrder> orders() {
        return orders;
    }

    public List<CommandEnvelope> received() {
        return received;
    }

    /** The order's ops chat, as the agent would keep it (the last 100 messages). */
    public List<ChatMessage> chat(String orderId) {
        return chats.getOrDefault(orderId, List.of());
    }

    /** Commands for this order are swallowed without a reply, as if the processor were down. */
    public void silence(String orderId) {
        silentOrders.add(orderId);
    }

    /** Puts an order in a state the tests need (waiting for an event or an approval, or ended). */
    public void put(FakeOrder order) {
        orders.put(order.orderId(), order);
    }

    /** The order's version: 1 when it started, one more with every change. */
    public long version(String orderId) {
        AtomicLong version = versions.get(orderId);
        return version == null ? 1 : version.get();
    }

    /** The version a command says the order must be at ({@code If-Match}), as the agent reads it. */
    private static Long expectedVersion(OrderCommand command) {
        return switch (command) {
            case OrderCommand.DecideApproval decide -> decide.expectedVersion();
            case OrderCommand.CancelOrder cancel -> cancel.expectedVersion();
            default -> null;
        };
    }

    private void decide(ConsumerRecord<String, CommandEnvelope> record) {
        CommandEnvelope envelope = record.value();
        if (envelope == null || "mail".equals(envelope.caller().kind())) {
            return;
        }
        received.add(envelope);
        if (silentOrders.contains(record.key())) {
            return;
        }
        OrderCommand command = envelope.command();
        FakeOrder order = orders.get(command.orderId());
        ObjectNode body = Json.object();
        int status = 200;
        RejectionKind kind = null;
        if (command instanceof OrderCommand.StartOrder start) {
            if (order == null) {
                orders.put(start.orderId(), new FakeOrder(start.orderId(), start.input().get("type").asString(),
                        start.fingerprint(), "queued", null, null, System.currentTimeMillis()));
                status = 201;
                body.put("orderId", start.orderId());
            } else if (order.fingerprint().equals(start.fingerprint())) {
                body.put("orderId", start.orderId()).put("replayed", true);
            } else {
                status = 422;
                kind = RejectionKind.ALREADY_EXISTS;
                body.put("error", "Idempotency-Key was already used with a different request body");
            }
        } else if (order == null) {
            status = 404;
            kind = RejectionKind.NOT_FOUND;
            body.put("error", "Order " + command.orderId() + " not found");
        } else if (expectedVersion(command) != null && expectedVersion(command) != version(order.orderId())) {
            status = 412;
            kind = RejectionKind.PRECONDITION_FAILED;
            body.put("error", "Order " + order.orderId() + " is at version " + version(order.orderId()) + ", not "
                    + expectedVersion(command) + ": it changed since it was read; read it again and retry");
        } else {
            switch (command) {
                case OrderCommand.DeliverEvent deliver -> {
                    boolean waiting = deliver.event().equals(order.waitingEvent());
                    body.put("delivered", waiting);
                    if (waiting) {
                        body.put("nodeId", "wait_payment");
                        orders.put(order.orderId(), order.withStatus("running"));
                    }
                }
                case OrderCommand.DecideApproval decide -> {
                    if (decide.nodeId().equals(order.waitingApprovalNode())) {
                        body.put("ok", true);
                        orders.put(order.orderId(), order.withStatus("running"));
                    } else {
                        status = 409;
                        kind = RejectionKind.INVALID_STATE;
                        body.put("error", "That node is not waiting for an approval.");
                    }
                }
                case OrderCommand.CancelOrder cancel -> {
                    if (ENDED.contains(order.status())) {
                        body.put("ok", false).put("status", order.status());
                    } else {
                        orders.put(order.orderId(), order.withStatus("cancelled"));
                        body.put("ok", true);
                    }
                }
                case OrderCommand.AppendChat append -> {
                    List<ChatMessage> next = new ArrayList<>(chat(order.orderId()));
                    long at = System.currentTimeMillis();
                    append.messages().forEach(m -> next.add(m.at(at)));
                    chats.put(order.orderId(), List.copyOf(next.subList(Math.max(0, next.size() - 100), next.size())));
                    body.put("ok", true).put("appended", append.messages().size());
                }
                // the fake keeps no flows: the real agent decides migrations
                case OrderCommand.MigrateOrder migrate -> {
                    status = 409;
                    kind = RejectionKind.INVALID_STATE;
                    body.put("error", "The test processor does not migrate orders");
                }
                // the fake keeps no incidents
                case OrderCommand.RetryIncident retry -> {
                    status = 404;
                    kind = RejectionKind.NOT_FOUND;
                    body.put("error", "Incident " + retry.incidentId() + " not found");
                }
                case OrderCommand.DismissIncident dismiss -> {
                    status = 404;
                    kind = RejectionKind.NOT_FOUND;
                    body.put("error", "Incident " + dismiss.incidentId() + " not found");
                }
                case OrderCommand.ConfirmProposal confirm -> {
                    List<ChatMessage> chat = chat(order.orderId());
                    ChatMessage carrier = chat.stream().filter(m -> m.proposal() != null
                            && m.proposal().id().equals(confirm.proposalId())).findFirst().orElse(null);
                    if (carrier == null) {
                        status = 404;
                        kind = RejectionKind.NOT_FOUND;
                        body.put("error", "Unknown proposal " + confirm.proposalId() + ".");
                    } else if (!carrier.proposal().open()) {
                        status = 409;
                        kind = RejectionKind.INVALID_STATE;
                        body.put("error", "Proposal " + confirm.proposalId() + " was already confirmed.");
                    } else {
                        chats.put(order.orderId(), chat.stream().map(m -> m == carrier
                                ? m.withProposal(m.proposal().confirmed()) : m).toList());
                        body.put("ok", true);
                    }
                }
                // a batch's cancel, as the agent decides it: once per batch, an ended order refused with the reason
                case OrderCommand.ApplyBatchAction batch -> {
                    if (batches.computeIfAbsent(order.orderId(), id -> ConcurrentHashMap.newKeySet())
                            .contains(batch.batchId())) {
                        body.put("ok", true).put("replayed", true);
                    } else if (!(batch.action() instanceof BatchAction.Cancel)) {
                        status = 409;
                        kind = RejectionKind.INVALID_STATE;
                        body.put("error", "The test processor only cancels in a batch");
                    } else if (ENDED.contains(order.status())) {
                        status = 409;
                        kind = RejectionKind.INVALID_STATE;
                        body.put("error", "Order " + order.orderId() + " has already ended: " + order.status());
                    } else {
                        orders.put(order.orderId(), order.withStatus("cancelled"));
                        batches.get(order.orderId()).add(batch.batchId());
                        body.put("ok", true);
                    }
                }
                case OrderCommand.StartOrder start -> throw new IllegalStateException("handled above");
            }
        }
        if (status < 300 && !(command instanceof OrderCommand.StartOrder)
                && !(body.has("delivered") && !body.get("delivered").asBoolean())
                && !(body.has("ok") && !body.get("ok").asBoolean())) {
            // a change: every socket on the order hears of it, as from the agent
            FakeOrder now = orders.get(command.orderId());
            notices.send(new ProducerRecord<>(Topics.ORDER_UPDATES.name(), command.orderId(),
                    new OrderUpdate(command.orderId(), OrderStatus.fromWire(now.status()),
                            versions.computeIfAbsent(command.orderId(), id -> new AtomicLong(1)).incrementAndGet(),
                            System.currentTimeMillis())));
        }
        if (status < 300 && orders.containsKey(command.orderId()) && !body.has("version")) {
            body.put("version", version(command.orderId()));
        }
        producer.send(new ProducerRecord<>(Topics.COMMAND_REPLIES.name(), envelope.replyTo(),
                new CommandReply(envelope.correlationId(), command.orderId(), status, kind, body)));
    }

    @Override
    public void close() {
        commands.close();
        producer.close();
        notices.close();
    }
}
