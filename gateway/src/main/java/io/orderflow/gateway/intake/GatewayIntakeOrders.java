package io.orderflow.gateway.intake;

import io.orderflow.gateway.GatewayProperties;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.commands.CommandBus;
import io.orderflow.gateway.commands.CommandReplies;
import io.orderflow.gateway.commands.OrderCommands;
import io.orderflow.gateway.commands.StartRequest;
import io.orderflow.gateway.flows.FlowCatalog;
import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.orders.ProcessorClient;
import io.orderflow.gateway.validation.RequestSchema;
import io.orderflow.gateway.validation.RequestValidator;
import io.orderflow.intake.IntakeOrders;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderView;
import java.time.Duration;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ObjectNode;

/**
 * The mail intake's starts and reads, through the gateway's own paths: the body validated against the start request's
 * schema, the order id made from the idempotency key, the start command sent on the command bus as the mail's sender
 * (source {@code mail}) and its reply read as {@code POST /api/v1/orders} reads it; an order read through the query
 * client.
 */
@Component
class GatewayIntakeOrders implements IntakeOrders {

    private final FlowCatalog flows;
    private final RequestValidator validator;
    private final CommandBus commands;
    private final ProcessorClient processor;
    private final Duration answerWithin;

    GatewayIntakeOrders(GatewayProperties gateway, FlowCatalog flows, RequestValidator validator,
                        CommandBus commands, ProcessorClient processor) {
        this.flows = flows;
        this.validator = validator;
        this.commands = commands;
        this.processor = processor;
        this.answerWithin = gateway.replyTimeout().plusSeconds(5);
    }

    @Override
    public Duration answerWithin() {
        return answerWithin;
    }

    @Override
    public Mono<FlowVersion> flow(String flowId) {
        return flows.resolve(flowId, null);
    }

    @Override
    public Mono<Started> start(FlowVersion flow, ObjectNode body, String idempotencyKey, String sender,
                               String mailbox) {
        StartRequest request;
        try {
            request = StartRequest.of(validator.validate(RequestSchema.START_ORDER, Json.write(body)));
        } catch (ApiException e) {
            return Mono.just(new Started.Invalid(e.body().issues() == null ? e.getMessage() : e.body().issues()
                    .stream().map(i -> i.path() + " " + i.message()).collect(Collectors.joining("; "))));
        }
        String orderId = OrderIds.fromIdempotencyKey(idempotencyKey);
        return commands.send(OrderCommands.mailStart(request, orderId, flow, sender, mailbox),
                OrderCommands.mailSender(sender)).map(reply -> started(orderId, reply));
    }

    @Override
    public Mono<OrderView> view(String orderId) {
        return processor.view(orderId);
    }

    private static Started started(String orderId, CommandReply reply) {
        if (reply.kind() == RejectionKind.ALREADY_EXISTS) {
            return new Started.KeyTaken();
        }
        int status = CommandReplies.status(reply);
        return switch (status) {
            case 201 -> new Started.Created(orderId);
            case 200 -> new Started.Replayed(orderId);
            default -> new Started.NotStarted(status, reply.body() != null && reply.body().has("error")
                    ? reply.body().get("error").asString() : "status " + status);
        };
    }
}
