package io.orderflow.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderView;
import io.orderflow.schemas.model.OrderType;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.subethamail.smtp.MessageHandler;
import org.subethamail.smtp.RejectException;
import org.subethamail.smtp.server.SMTPServer;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ObjectNode;

/**
 * The acknowledgement reply goes through a real SMTP relay on loopback that refuses the first attempt: a transient
 * refusal (451) is tried again and the buyer gets the reply once; a permanent one (554) is not tried again.
 */
class AcknowledgementRelayTest {

    private final AtomicInteger attempts = new AtomicInteger();
    private final List<String> delivered = new CopyOnWriteArrayList<>();
    private SMTPServer relay;

    @AfterEach
    void stopRelay() {
        if (relay != null) {
            relay.stop();
        }
    }

    @Test
    void a_relay_that_is_busy_once_gets_the_reply_on_the_next_attempt() {
        Acknowledgements acknowledgements = acknowledgements(relayRefusingFirst(451, "4.3.2 Busy, try again"));

        acknowledgements.send(mail(), "orders@orderflow.example", "ord_retry", flow(), Optional.empty());

        await().atMost(Duration.ofSeconds(20)).until(() -> delivered.size() == 1);
        assertThat(attempts).hasValue(2);
        assertThat(delivered.getFirst()).contains("started order ord_retry");
    }

    @Test
    void a_permanent_refusal_is_not_tried_again() {
        Acknowledgements acknowledgements = acknowledgements(relayRefusingFirst(554, "5.7.1 Not accepted"));

        acknowledgements.send(mail(), "orders@orderflow.example", "ord_refused", flow(), Optional.empty());

        await().atMost(Duration.ofSeconds(20)).until(() -> attempts.get() == 1);
        await().during(Acknowledgements.RELAY_FIRST_WAIT.multipliedBy(3)).atMost(Duration.ofSeconds(10))
                .until(() -> attempts.get() == 1);
        assertThat(delivered).isEmpty();
    }

    /** A relay that answers DATA with {@code code} the first time and accepts every later mail. */
    private int relayRefusingFirst(int code, String text) {
        relay = SMTPServer.port(0)
                .bindAddress(InetAddress.getLoopbackAddress())
                .messageHandlerFactory(context -> new MessageHandler() {
                    @Override
                    public void from(String from) {
                    }

                    @Override
                    public void recipient(String recipient) {
                    }

                    @Override
                    public String data(InputStream data) throws RejectException, java.io.IOException {
                        String message = new String(data.readAllBytes(), StandardCharsets.UTF_8);
                        if (attempts.incrementAndGet() == 1) {
                            throw new RejectException(code, text);
                        }
                        delivered.add(message);
                        return null;
                    }

                    @Override
                    public void done() {
                    }
                })
                .build();
        relay.start();
        return relay.getPortAllocated();
    }

    /** Acknowledgements through the relay on {@code port}; no processor answers, so the reply goes without lines. */
    private static Acknowledgements acknowledgements(int port) {
        IntakeProperties settings = new IntakeProperties(null, null, null, null, null, null, null, null,
                InetAddress.getLoopbackAddress().getHostAddress(), port, null, null, null, Duration.ofMillis(200), null, null);
        return new Acknowledgements(settings, new NoOrders());
    }

    /** A service that never answers a read: the reply goes without the order's lines. */
    private record NoOrders() implements IntakeOrders {

        @Override
        public Duration answerWithin() {
            return Duration.ofSeconds(1);
        }

        @Override
        public Mono<FlowVersion> flow(String flowId) {
            return Mono.error(new IllegalStateException("no flows here"));
        }

        @Override
        public Mono<Started> start(FlowVersion flow, ObjectNode body, String key, String sender, String mailbox) {
            return Mono.error(new IllegalStateException("no starts here"));
        }

        @Override
        public Mono<OrderView> view(String orderId) {
            return Mono.error(new IllegalStateException("the processor is unavailable"));
        }
    }

    private static InboundMail mail() {
        return new InboundMail("buyer@acme.example", "<m-1@acme.example>", "PO 4711", null, List.of(),
                "3 x WIDGET-1", List.of("the mail text"), false, List.of(), false);
    }

    private static FlowVersion flow() {
        List<NodeDefinition> nodes = List.of(new NodeDefinition("n0", "pricing", "Price", Json.object(), null),
                new NodeDefinition("end", "end", "End", Json.object(), null));
        return new FlowVersion("b2b_order", 1, 0, new FlowDefinition("b2b_order", "Flow b2b_order", "A test flow",
                OrderType.B2B_ORDER, nodes, List.of(new EdgeDefinition("e0", "n0", "end", null))));
    }
}
