package io.orderflow.processor.streams;

import io.orderflow.processor.order.OrderState;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.ChatMessage;
import io.orderflow.schemas.model.OrderStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ops chat through the agent: appended messages are stamped and stored, each append is a change every socket is
 * told about on {@code order-updates}, ended orders take chat too, and a proposal is confirmed once and only once.
 */
class ChatTest {

    private final AgentDriver agent = new AgentDriver();

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void givenAnOrder_whenChatIsAppended_thenTheMessagesAreStampedStoredAndNoticed() {
        agent.command(start(ORDER));
        agent.updates();
        agent.tasks();
        long at = agent.now();

        CommandReply reply = agent.command(new OrderCommand.AppendChat(ORDER, List.of(user("msg_1", "status?"),
                assistant("msg_2", "The order is queued."))));

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body()).isEqualTo(Json.object().put("ok", true).put("appended", 2).put("version", 2));
        OrderState state = agent.state(ORDER);
        assertThat(state.chat()).extracting(ChatMessage::id, ChatMessage::role, ChatMessage::text, ChatMessage::at)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("msg_1", "user", "status?", at),
                        org.assertj.core.groups.Tuple.tuple("msg_2", "assistant", "The order is queued.", at));
        assertThat(state.chat().getFirst().by()).isEqualTo("dana@example.com");
        assertThat(agent.updates()).singleElement()
                .satisfies(update -> assertThat(update.version()).isEqualTo(state.version()));
        assertThat(agent.tasks()).as("chat starts nothing in the run").isEmpty();
    }

    @Test
    void givenAnEndedOrder_whenChatIsAppended_thenItIsStoredAndTheStatusStays() {
        agent.command(start(ORDER));
        agent.command(new OrderCommand.CancelOrder(ORDER, "changed my mind"));

        CommandReply reply = agent.command(new OrderCommand.AppendChat(ORDER, List.of(user("msg_1", "why?"))));

        assertThat(reply.status()).isEqualTo(200);
        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.CANCELLED);
        assertThat(agent.state(ORDER).chat()).hasSize(1);
    }

    @Test
    void givenAnUnknownOrder_whenChatIsAppended_then404() {
        CommandReply reply = agent.command(new OrderCommand.AppendChat("ord_nobody", List.of(user("msg_1", "hi"))));

        assertThat(reply.kind()).isEqualTo(RejectionKind.NOT_FOUND);
        assertThat(agent.state("ord_nobody")).isNull();
    }

    @Test
    void givenAnOpenProposal_whenConfirmed_thenItIsConfirmedAndASecondConfirmIsRefused() {
        agent.command(start(ORDER));
        agent.command(new OrderCommand.AppendChat(ORDER, List.of(user("msg_1", "approve it"), proposal("msg_2"))));

        CommandReply first = agent.command(new OrderCommand.ConfirmProposal(ORDER, "prop_1"));
        CommandReply second = agent.command(new OrderCommand.ConfirmProposal(ORDER, "prop_1"));
        CommandReply unknown = agent.command(new OrderCommand.ConfirmProposal(ORDER, "prop_nope"));

        assertThat(first.status()).isEqualTo(200);
        assertThat(agent.state(ORDER).chat().get(1).proposal().status()).isEqualTo("confirmed");
        assertThat(second.kind()).isEqualTo(RejectionKind.INVALID_STATE);
        assertThat(second.body().get("error").asString()).isEqualTo("Proposal prop_1 was already confirmed.");
        assertThat(unknown.kind()).isEqualTo(RejectionKind.NOT_FOUND);
        assertThat(unknown.body().get("error").asString()).isEqualTo("Unknown proposal prop_nope.");
    }

    @Test
    void anEmptyAppendIsRefusedAndChangesNothing() {
        agent.command(start(ORDER));
        long version = agent.state(ORDER).version();

        assertThat(agent.command(new OrderCommand.AppendChat(ORDER, List.of())).kind())
                .isEqualTo(RejectionKind.INVALID_ARGUMENT);
        assertThat(agent.state(ORDER).version()).isEqualTo(version);
    }

    static ChatMessage user(String id, String text) {
        return new ChatMessage(id, 0, ChatMessage.USER, text, "dana@example.com", null, null, null);
    }

    static ChatMessage assistant(String id, String text) {
        return new ChatMessage(id, 0, ChatMessage.ASSISTANT, text, null, null, null, null);
    }

    static ChatMessage proposal(String id) {
        return new ChatMessage(id, 0, ChatMessage.TOOL, "Proposed: approve Approve order", null, "approve",
                Json.object(), new ChatMessage.Proposal("prop_1", "decide", "approve", "approved", null, "open"));
    }
}
