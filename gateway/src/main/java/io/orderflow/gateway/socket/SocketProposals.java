package io.orderflow.gateway.socket;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.chat.OpsChat;
import io.orderflow.gateway.commands.CommandBus;
import io.orderflow.gateway.commands.CommandReplies;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.model.ChatMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code decide} or {@code cancel} with a {@code proposalId}: the page confirms a chat proposal (after its undo
 * window). An unknown or already confirmed proposal, or one that proposes something else, is an error and nothing is
 * sent; otherwise the ordinary command is sent and, when it succeeded, the proposal is marked confirmed through the
 * agent.
 */
@Component
class SocketProposals {

    /** The chat proposal a decide or cancel confirms. */
    static final String PROPOSAL_ID = "proposalId";
    private static final Logger log = LoggerFactory.getLogger(SocketProposals.class);

    private final OpsChat chat;
    private final CommandBus commands;
    private final SocketParams params;

    SocketProposals(OpsChat chat, CommandBus commands, SocketParams params) {
        this.chat = chat;
        this.commands = commands;
        this.params = params;
    }

    Mono<SocketOut> confirm(JsonNode id, SocketMethod method, String orderId, ObjectNode args, Caller caller,
                            String proposalId) {
        return chat.openProposal(orderId, proposalId)
                .map(proposal -> {
                    if (method == SocketMethod.CANCEL && !args.has("reason") && proposal.reason() != null) {
                        args.put("reason", proposal.reason()); // the reason the chat proposed
                    }
                    OrderCommand command = params.command(method, orderId, args, caller);
                    requireMatch(proposal, command);
                    return command;
                })
                .flatMap(command -> commands.send(command, caller))
                .flatMap(reply -> !succeeded(reply) ? Mono.just(reply)
                        : chat.confirm(orderId, proposalId, caller)
                        .doOnNext(confirmed -> {
                            if (!CommandReplies.accepted(confirmed)) {
                                log.warn("Proposal {} of {} was carried out but not marked confirmed: {}",
                                        proposalId, orderId, confirmed.body());
                            }
                        })
                        .thenReturn(reply))
                .map(reply -> SocketOut.answer(id, reply))
                .onErrorResume(ApiException.class, e -> Mono.just(SocketOut.error(id, e)));
    }

    private static void requireMatch(ChatMessage.Proposal proposal, OrderCommand command) {
        boolean matches = switch (command) {
            case OrderCommand.DecideApproval decide -> ChatMessage.Proposal.DECIDE.equals(proposal.kind())
                    && decide.nodeId().equals(proposal.nodeId()) && decide.decision().equals(proposal.decision());
            case OrderCommand.CancelOrder cancel -> ChatMessage.Proposal.CANCEL.equals(proposal.kind());
            default -> false;
        };
        if (!matches) {
            throw ApiException.conflict("Proposal " + proposal.id() + " proposes " + describe(proposal)
                    + ", not this call.");
        }
    }

    private static String describe(ChatMessage.Proposal proposal) {
        return ChatMessage.Proposal.CANCEL.equals(proposal.kind()) ? "a cancel"
                : "to decide " + proposal.nodeId() + " as " + proposal.decision();
    }

    /** A 2xx reply that is not {@code { ok: false }} (a cancel of an order that has already ended). */
    private static boolean succeeded(CommandReply reply) {
        JsonNode ok = reply.body() == null ? null : reply.body().get("ok");
        return CommandReplies.accepted(reply) && (ok == null || !ok.isBoolean() || ok.asBoolean());
    }
}
