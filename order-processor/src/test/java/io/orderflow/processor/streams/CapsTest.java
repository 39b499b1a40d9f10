package io.orderflow.processor.streams;

import io.orderflow.processor.order.OrderState;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.model.ChatMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.IntStream;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.log;
import static org.assertj.core.api.Assertions.assertThat;

/** Only the last 400 timeline entries and the last 100 chat messages are kept. */
class CapsTest {

    private final AgentDriver agent = new AgentDriver();

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void theTimelineKeepsTheLast400Entries() {
        agent.command(start(ORDER));

        IntStream.rangeClosed(1, 450).forEach(i -> agent.report(log("extract", i, "entry " + i, null)));

        OrderState state = agent.state(ORDER);
        assertThat(state.timeline()).hasSize(400);
        assertThat(state.timeline().getFirst().message()).isEqualTo("entry 51");
        assertThat(state.timeline().getLast().message()).isEqualTo("entry 450");
    }

    @Test
    void theChatKeepsTheLast100Messages() {
        agent.command(start(ORDER));

        // 65 appends of two messages each, as the chat loop sends them: a user message and its reply
        for (int i = 1; i <= 130; i += 2) {
            agent.command(new OrderCommand.AppendChat(ORDER, List.of(
                    new ChatMessage("msg_" + i, 0, ChatMessage.USER, "message " + i, "dana", null, null, null),
                    new ChatMessage("msg_" + (i + 1), 0, ChatMessage.ASSISTANT, "message " + (i + 1), null, null,
                            null, null))));
        }

        OrderState state = agent.state(ORDER);
        assertThat(state.chat()).hasSize(100);
        assertThat(state.chat().getFirst().text()).isEqualTo("message 31");
        assertThat(state.chat().getLast().text()).isEqualTo("message 130");
    }
}
