package io.orderflow.gateway.socket;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.commands.OrderCommands;
import io.orderflow.gateway.commands.OrderCommands.Channel;
import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.validation.RequestSchema;
import io.orderflow.gateway.validation.RequestValidator;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.json.Json;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The validation of a socket call's params: the same request schemas as the REST routes, so a call becomes the same
 * command the route sends (through {@link OrderCommands}, with the socket's defaults).
 */
@Component
class SocketParams {

    private final RequestValidator validator;

    SocketParams(RequestValidator validator) {
        this.validator = validator;
    }

    /** The command for a decide, deliver or cancel call; a 400 {@link ApiException} for invalid params. */
    OrderCommand command(SocketMethod method, String orderId, ObjectNode params, Caller caller) {
        if (!OrderIds.isOrderId(orderId)) {
            throw ApiException.notFound("Order " + orderId + " not found");
        }
        return switch (method) {
            case DECIDE -> {
                JsonNode nodeId = params.remove("nodeId");
                if (nodeId == null || !nodeId.isString() || nodeId.asString().isBlank()) {
                    throw ApiException.badRequest("params.nodeId is required: the approval node to decide");
                }
                JsonNode request = validator.validate(RequestSchema.DECIDE_APPROVAL, Json.write(params));
                yield OrderCommands.decide(caller, orderId, nodeId.asString(), request);
            }
            case DELIVER -> OrderCommands.deliver(orderId,
                    validator.validate(RequestSchema.DELIVER_EVENT, Json.write(params)));
            case CANCEL -> OrderCommands.cancel(Channel.SOCKET, orderId,
                    validator.validate(RequestSchema.CANCEL_ORDER, Json.write(params)));
            case CHAT -> throw new IllegalStateException("chat runs the chat loop, not one command");
        };
    }
}
