package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetup;
import io.orderflow.schemas.json.Json;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.eclipse.angus.mail.smtp.SMTPTransport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * Orders by email through the whole system: a mail relay delivers to the standalone system's SMTP listener, the real
 * processor and runner run the order (the Extract order node reads the mail's text), and the acknowledgement goes back
 * through a real SMTP relay (GreenMail) to the sender.
 */
@ExtendWith(SharedStandalone.class)
class MailIntakeEndToEndTest {

    private static final GreenMail RELAY = new GreenMail(
            new ServerSetup(SharedStandalone.MAIL_RELAY_PORT, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
    private static WebTestClient http;
    private static int smtpPort;

    @BeforeAll
    static void connect(StandaloneSystem system) {
        RELAY.start();
        http = SharedStandalone.client(system);
        smtpPort = system.intakePort();
    }

    @AfterAll
    static void stopRelay() {
        RELAY.stop();
    }

    @Test
    void a_purchase_request_by_mail_is_extracted_priced_and_completed_and_its_sender_gets_the_reply() throws Exception {
        String messageId = "<" + UUID.randomUUID() + "@orderflow.example>";
        String raw = mail("ops@orderflow.example", "purchasing@orderflow.example", messageId, "Copy room refill", """
                Hello purchasing,

                please order for the copy room:
                - 2 x PAPER-A4 Copy paper
                - 1 x TONER-K

                Thanks, Ops
                """);

        String answer = send("purchasing@orderflow.example", raw);

        assertThat(answer).startsWith("250 2.0.0 Accepted: order ord_");
        String orderId = answer.substring(answer.indexOf("ord_")).strip();
        JsonNode order = await().atMost(Duration.ofSeconds(60)).until(() -> state(orderId),
                s -> s != null && "completed".equals(s.get("status").asString()));
        assertThat(order.get("order").get("customerId").asString()).isEqualTo("dept_ops");
        assertThat(order.get("order").get("lines").valueStream()
                .map(l -> l.get("qty").asInt() + " x " + l.get("sku").asString()).toList())
                .containsExactly("2 x PAPER-A4", "1 x TONER-K");
        assertThat(order.get("timeline").valueStream().map(e -> e.get("message").asString()).toList())
                .contains("Received by mail from ops@orderflow.example at purchasing@orderflow.example");

        MimeMessage reply = await().atMost(Duration.ofSeconds(30)).until(() -> replyTo(messageId), r -> r != null);
        assertThat(reply.getAllRecipients()[0].toString()).isEqualTo("ops@orderflow.example");
        assertThat(reply.getSubject()).isEqualTo("Re: Copy room refill [order " + orderId + "]");
        assertThat(GreenMailUtil.getBody(reply).replace("\r\n", "\n"))
                .contains("your mail to purchasing@orderflow.example started order " + orderId)
                .contains("Customer: Operations department (dept_ops)")
                .containsPattern("\n    2 x PAPER-A4 Copy paper( @ 6\\.75 USD)?\n    1 x TONER-K( @ 89\\.00 USD)?\n")
                .contains("Follow the order: http://localhost:8080/orders/" + orderId);
    }

    @Test
    void a_b2b_order_by_mail_waits_for_its_payment_and_a_redelivery_starts_nothing_more() {
        String messageId = "<" + UUID.randomUUID() + "@acme.example>";
        String raw = mail("buyer@acme.example", "orders@orderflow.example", messageId, "PO 5521",
                "3 x WIDGET-1 Blue widget\n2 x GADGET-1\n");

        String first = send("orders@orderflow.example", raw);
        String orderId = first.substring(first.indexOf("ord_")).strip();
        JsonNode order = await().atMost(Duration.ofSeconds(60)).until(() -> state(orderId),
                s -> s != null && "waiting".equals(s.get("status").asString()));
        String again = send("orders@orderflow.example", raw);

        assertThat(order.get("waits").valueStream().map(w -> w.get("nodeId").asString()).toList())
                .containsExactly("await_payment");
        assertThat(order.get("order").get("customerId").asString()).isEqualTo("acme_gmbh");
        assertThat(again).isEqualTo("250 2.0.0 Already received as order " + orderId + "; nothing new was started");
        JsonNode list = Json.MAPPER.readTree(http.get().uri("/api/v1/orders?q={q}", "acme_gmbh").exchange()
                .expectStatus().isOk().expectBody().returnResult().getResponseBody());
        assertThat(list.get("orders").valueStream().filter(r -> r.get("id").asString().equals(orderId))).hasSize(1);
    }

    private static String mail(String from, String to, String messageId, String subject, String body) {
        return "Authentication-Results: mx.orderflow.local; dmarc=pass header.from=" + from.substring(from.indexOf('@') + 1)
                + "\r\nFrom: " + from + "\r\nTo: " + to + "\r\nSubject: " + subject + "\r\nMessage-ID: " + messageId
                + "\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n"
                + body.replace("\n", "\r\n");
    }

    /** Delivers as a mail relay would; answers the server's last reply (the one to the end of DATA). */
    private static String send(String recipient, String raw) {
        Properties props = new Properties();
        props.put("mail.smtp.host", "127.0.0.1");
        props.put("mail.smtp.port", String.valueOf(smtpPort));
        Session session = Session.getInstance(props);
        try (SMTPTransport transport = (SMTPTransport) session.getTransport("smtp")) {
            transport.connect();
            transport.sendMessage(new MimeMessage(session, new ByteArrayInputStream(raw.getBytes(StandardCharsets.UTF_8))),
                    new Address[]{new InternetAddress(recipient)});
            return transport.getLastServerResponse().strip();
        } catch (MessagingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode state(String orderId) {
        var result = http.get().uri("/api/v1/orders/{id}", orderId).exchange().expectBody().returnResult();
        return result.getStatus().is2xxSuccessful() ? Json.MAPPER.readTree(result.getResponseBody()) : null;
    }

    private static MimeMessage replyTo(String messageId) {
        List<MimeMessage> replies = Arrays.stream(RELAY.getReceivedMessages()).filter(m -> {
            try {
                return messageId.equals(m.getHeader("In-Reply-To", null));
            } catch (MessagingException e) {
                return false;
            }
        }).toList();
        return replies.isEmpty() ? null : replies.getFirst();
    }
}
