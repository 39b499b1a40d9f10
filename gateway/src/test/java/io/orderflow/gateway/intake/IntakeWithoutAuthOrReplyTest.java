package io.orderflow.gateway.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.orderflow.gateway.GatewayApplication;
import io.orderflow.intake.SmtpListener;
import java.net.ConnectException;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code INTAKE_REQUIRE_AUTH='false'} and {@code INTAKE_REPLY='false'}: a customer's mail without any authentication
 * result starts its order, and nobody gets a reply. (The flows come from {@link IntakeSmtpTest}'s class set-up.)
 * The listener binds {@code INTAKE_SMTP_HOST=127.0.0.1} here.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"spring.config.name=gateway", "orderflow.gateway.reply-timeout=5s",
                "orderflow.intake.smtp-port=0", "orderflow.intake.require-auth=false",
                "orderflow.intake.reply=false", "orderflow.intake.smtp-host=127.0.0.1"})
class IntakeWithoutAuthOrReplyTest {

    static final String BOOTSTRAP = IntakeSmtpTest.BOOTSTRAP;
    static final MailProcessorFake PROCESSOR = IntakeSmtpTest.PROCESSOR;
    static final GreenMail RELAY = new GreenMail(ServerSetupTest.SMTP.dynamicPort());

    static {
        RELAY.start();
    }

    @DynamicPropertySource
    static void settings(DynamicPropertyRegistry registry) {
        registry.add("orderflow.kafka.bootstrap-servers", () -> BOOTSTRAP);
        registry.add("orderflow.gateway.processor-url", PROCESSOR::queryUrl);
        registry.add("orderflow.intake.relay-host", () -> RELAY.getSmtp().getBindTo());
        registry.add("orderflow.intake.relay-port", () -> RELAY.getSmtp().getPort());
    }

    @AfterAll
    static void stopRelay() {
        RELAY.stop();
    }

    @Autowired
    SmtpListener listener;

    @Test
    void a_customer_mail_without_authentication_results_starts_an_order_and_no_reply_is_sent() {
        String messageId = IntakeSmtpTest.messageId();
        SmtpClient.Answer answer = SmtpClient.send(listener.port().orElseThrow(), "purchasing@orderflow.example",
                IntakeSmtpTest.mail("ops@orderflow.example", messageId, null, "2 x LAPTOP-14\n"));

        assertThat(answer.code()).isEqualTo(250);
        String orderId = IntakeSmtpTest.orderIdOf(messageId);
        assertThat(PROCESSOR.started()).filteredOn(s -> s.orderId().equals(orderId)).singleElement()
                .satisfies(s -> assertThat(s.input().get("customerId").asString()).isEqualTo("dept_ops"));
        // With replies on, the relay has the reply within a second (IntakeSmtpTest); here it stays empty.
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                .until(() -> RELAY.getReceivedMessages().length == 0);
    }

    @Test
    void the_listener_accepts_connections_only_on_the_address_it_binds() throws Exception {
        int port = listener.port().orElseThrow();

        assertThatThrownBy(() -> new Socket("127.0.0.2", port).close()).isInstanceOf(ConnectException.class);
        try (Socket bound = new Socket("127.0.0.1", port)) {
            assertThat(bound.isConnected()).isTrue();
        }
    }

    @Test
    void a_stranger_is_still_refused_when_authentication_is_off() {
        String messageId = IntakeSmtpTest.messageId();
        SmtpClient.Answer answer = SmtpClient.send(listener.port().orElseThrow(), "orders@orderflow.example",
                IntakeSmtpTest.mail("someone@nowhere.example", messageId, null, "2 x LAPTOP-14\n"));

        assertThat(answer.code()).isEqualTo(550);
        assertThat(answer.text()).contains("is not allowed to place orders by email");
    }
}
