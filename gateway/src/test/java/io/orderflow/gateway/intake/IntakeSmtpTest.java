package io.orderflow.gateway.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.orderflow.gateway.GatewayApplication;
import io.orderflow.intake.Pdfs;
import io.orderflow.intake.SmtpListener;
import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.testing.TestFlows;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.OrderSource;
import io.orderflow.schemas.model.OrderType;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Email intake over real SMTP: a Jakarta Mail client (or a hand-typed SMTP dialogue) sends to the gateway's listener,
 * the gateway sends start commands on the real broker, and its acknowledgement replies go through a real SMTP relay
 * (GreenMail). What is asserted is what a sender or an operator would see: the SMTP answer, the order that was
 * started (flow, customer, text, origin), and the reply in the sender's mailbox.
 *
 * <p>The trusted relay is 127.0.0.1 ({@code INTAKE_TRUSTED_RELAYS}); a client connecting from 127.0.0.2 is anybody
 * else who reaches the port.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.config.name=gateway", "orderflow.gateway.reply-timeout=5s",
                "orderflow.intake.smtp-port=0", "orderflow.intake.trusted-relays=127.0.0.1",
                "orderflow.intake.allowlist=partner@outside.example, @friends.example",
                "orderflow.intake.max-message-bytes=20000",
                // most tests here send as one sender: the sender rate is IntakeLimitsTest's
                "orderflow.intake.mails-per-sender-per-minute=100000",
                "orderflow.intake.public-base-url=https://orders.example.com/",
                "orderflow.intake.from=orders@orderflow.example"})
@Tag("docker")
class IntakeSmtpTest {

    static final String BOOTSTRAP = TestKafka.containerBootstrapServers();
    static final MailProcessorFake PROCESSOR;
    static final GreenMail RELAY = new GreenMail(ServerSetupTest.SMTP.dynamicPort());
    static final String DMARC_PASS = "mx.orderflow.local; dmarc=pass header.from=";
    static final String TRUSTED_AUTHSERV_ID = "mx.orderflow.local";
    static final String STRANGER = "127.0.0.2";

    static {
        // b2b_order exactly as the gateway's other integration tests publish it, so the shared topic does not change
        TestFlows.publish(BOOTSTRAP,
                TestFlows.flow("b2b_order", OrderType.B2B_ORDER, 2, 3_000, 5),
                TestFlows.flow("purchase_request", OrderType.PURCHASE_REQUEST, 1, 500, 3));
        PROCESSOR = new MailProcessorFake(BOOTSTRAP);
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

    @ParameterizedTest(name = "{0}@ starts a {1}")
    @CsvSource({"orders, b2b_order", "sales, b2b_order", "purchasing, purchase_request", "ORDERS, b2b_order"})
    void each_default_mailbox_starts_an_order_on_its_flow(String mailbox, String flowId) {
        String messageId = messageId();
        SmtpClient.Answer answer = send(mailbox + "@orderflow.example",
                mail("buyer@acme.example", messageId, DMARC_PASS + "acme.example", "3 x WIDGET-1 Blue widget\n"));

        assertThat(answer.code()).isEqualTo(250);
        assertThat(answer.text()).contains("Accepted: order " + orderIdOf(messageId));
        OrderCommand.StartOrder start = started(messageId);
        assertThat(start.flow().flowId()).isEqualTo(flowId);
        assertThat(start.input().get("type").asString()).isEqualTo(flowId);
        assertThat(start.input().get("documentText").asString()).isEqualTo("3 x WIDGET-1 Blue widget");
        assertThat(start.source()).isEqualTo(
                OrderSource.mail("buyer@acme.example", mailbox.toLowerCase() + "@orderflow.example"));
    }

    @Test
    void a_mailbox_intake_does_not_have_is_refused_at_rcpt_with_550_and_the_mailboxes_it_has() {
        String messageId = messageId();
        SmtpClient.Answer answer = send("nobody@orderflow.example",
                mail("buyer@acme.example", messageId, DMARC_PASS + "acme.example", "3 x WIDGET-1\n"));

        assertThat(answer.code()).isEqualTo(550);
        assertThat(answer.text()).contains("5.1.1 No such mailbox: nobody@orderflow.example")
                .contains("orders@, sales@, purchasing@");
        assertNothingStarted(messageId);
    }

    @Test
    void a_mail_names_one_intake_mailbox_and_a_second_one_is_deferred_for_its_own_delivery() {
        List<String> answers = SmtpClient.dialogue(port(), "HELO relay.test", "MAIL FROM:<buyer@acme.example>",
                "RCPT TO:<orders@orderflow.example>", "RCPT TO:<Orders@orderflow.example>",
                "RCPT TO:<purchasing@orderflow.example>", "QUIT");

        assertThat(answers.get(2)).startsWith("250");
        assertThat(answers.get(3)).startsWith("250");
        assertThat(answers.get(4)).isEqualTo("452 4.5.3 One intake mailbox per mail; orders@orderflow.example takes "
                + "this one, send to purchasing@orderflow.example separately");
    }

    @Test
    void an_automatic_mail_starts_its_order_but_gets_no_reply() {
        String messageId = messageId();
        String raw = mail("buyer@acme.example", messageId, DMARC_PASS + "acme.example", "3 x WIDGET-1\n")
                .replace("Subject: PO 4711", "Auto-Submitted: auto-generated\r\nSubject: PO 4711");

        assertThat(send("orders@orderflow.example", raw).code()).isEqualTo(250);

        assertThat(started(messageId).input().get("customerId").asString()).isEqualTo("acme_gmbh");
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                .until(() -> repliesTo(messageId).isEmpty());
    }

    @Test
    void the_customer_is_found_by_their_own_address_or_by_their_company_domain() {
        String own = messageId();
        String company = messageId();
        send("orders@orderflow.example", mail("Sam.Rivera@example.com", own, DMARC_PASS + "example.com", "1 x GADGET-1\n"));
        send("orders@orderflow.example", mail("anyone@acme.example", company, DMARC_PASS + "acme.example", "1 x GADGET-1\n"));

        assertThat(started(own).input().get("customerId").asString()).isEqualTo("cus_42");
        assertThat(started(own).source().from()).isEqualTo("sam.rivera@example.com");
        assertThat(started(company).input().get("customerId").asString()).isEqualTo("acme_gmbh");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            DMARC pass                          | mx.orderflow.local; dmarc=pass header.from=acme.example                                                   | 250 |
            SPF and DKIM pass, aligned          | mx.orderflow.local; spf=pass smtp.mailfrom=buyer@acme.example; dkim=pass header.d=acme.example              | 250 |
            SPF and DKIM pass for a subdomain   | mx.orderflow.local (relay); spf=pass smtp.mailfrom=bounces.acme.example; dkim=pass header.i=@mail.acme.example | 250 |
            SPF pass, DKIM fail                 | mx.orderflow.local; spf=pass smtp.mailfrom=buyer@acme.example; dkim=fail header.d=acme.example              | 550 | SPF and DKIM did not both pass aligned with acme.example (spf=pass, dkim=fail, dmarc=none)
            SPF and DKIM pass, not aligned      | mx.orderflow.local; spf=pass smtp.mailfrom=mailer.example; dkim=pass header.d=mailer.example                | 550 | did not both pass aligned with acme.example
            DMARC fail                          | mx.orderflow.local; dmarc=fail header.from=acme.example                                                   | 550 | dmarc=fail
            DMARC pass for another domain       | mx.orderflow.local; dmarc=pass header.from=mailer.example                                                 | 550 | DMARC did not pass
            DMARC pass without header.from      | mx.orderflow.local; dmarc=pass | 550 | DMARC did not pass
            another authserv-id | mx.evil.example; dmarc=pass header.from=acme.example | 550 | from the trusted relay
            no Authentication-Results           | | 550 | no Authentication-Results from the trusted relay
            """)
    void only_mail_the_trusted_relay_authenticated_starts_an_order(String name, String results, int code,
                                                                    String reason) {
        String messageId = messageId();
        SmtpClient.Answer answer = send("orders@orderflow.example",
                mail("buyer@acme.example", messageId, results, "3 x WIDGET-1\n"));

        assertThat(answer.code()).as(name).isEqualTo(code);
        if (code == 250) {
            assertThat(started(messageId).input().get("customerId").asString()).isEqualTo("acme_gmbh");
        } else {
            assertThat(answer.text()).contains("5.7.1 Sender authentication failed for buyer@acme.example: ")
                    .contains(reason)
                    .doesNotContain(TRUSTED_AUTHSERV_ID);
            assertNothingStarted(messageId);
        }
    }

    @Test
    void authentication_results_on_a_mail_from_a_connection_that_is_not_a_trusted_relay_are_not_believed() {
        String direct = messageId();
        String relayed = messageId();
        String results = DMARC_PASS + "acme.example";

        SmtpClient.Answer forged = SmtpClient.send(port(), "orders@orderflow.example",
                mail("buyer@acme.example", direct, results, "3 x WIDGET-1\n"), STRANGER);
        SmtpClient.Answer fromRelay = SmtpClient.send(port(), "orders@orderflow.example",
                mail("buyer@acme.example", relayed, results, "3 x WIDGET-1\n"), "127.0.0.1");

        assertThat(forged.code()).isEqualTo(550);
        assertThat(forged.text()).isEqualTo("550 5.7.1 Sender authentication failed for buyer@acme.example: "
                + "the mail has no Authentication-Results from the trusted relay");
        assertNothingStarted(direct);
        assertThat(fromRelay.code()).isEqualTo(250);
        assertThat(started(relayed).input().get("customerId").asString()).isEqualTo("acme_gmbh");
    }

    @Test
    void only_the_relays_own_header_on_top_counts_and_a_forged_one_further_down_is_not_read() {
        String forgedBelow = messageId();
        String forgedBelowForeign = messageId();
        // The relay adds its header on top, then its Received; what follows is what the sender wrote.
        String relayFail = "mx.orderflow.local; dmarc=fail header.from=acme.example\r\n"
                + "Received: from mail.attacker.example by mx.orderflow.local; Mon, 23 Nov 2026 10:00:00 +0000\r\n"
                + "Authentication-Results: mx.orderflow.local; dmarc=pass header.from=acme.example";
        String foreignOnTop = "mx.upstream.example; dmarc=none\r\n"
                + "Authentication-Results: mx.orderflow.local; dmarc=pass header.from=acme.example";

        SmtpClient.Answer below = send("orders@orderflow.example",
                mail("buyer@acme.example", forgedBelow, relayFail, "3 x WIDGET-1\n"));
        SmtpClient.Answer underForeign = send("orders@orderflow.example",
                mail("buyer@acme.example", forgedBelowForeign, foreignOnTop, "3 x WIDGET-1\n"));

        assertThat(below.code()).isEqualTo(550);
        assertThat(below.text()).contains("5.7.1 Sender authentication failed").contains("dmarc=fail")
                .doesNotContain(TRUSTED_AUTHSERV_ID);
        assertThat(underForeign.code()).isEqualTo(550);
        assertThat(underForeign.text()).contains("the mail has no Authentication-Results from the trusted relay")
                .doesNotContain(TRUSTED_AUTHSERV_ID);
        assertNothingStarted(forgedBelow);
        assertNothingStarted(forgedBelowForeign);
    }

    @Test
    void a_forged_header_the_relay_added_nothing_above_but_its_received_line_is_not_read() {
        String messageId = messageId();
        // The relay skipped its checks (an authenticated submission, a milter not run) and only stamped Received on
        // top; under it the sender's own first line claims the relay's pass.
        String raw = "Received: from laptop.attacker.example by mx.orderflow.local; Mon, 23 Nov 2026 10:00:00 +0000\r\n"
                + mail("buyer@acme.example", messageId, DMARC_PASS + "acme.example", "3 x WIDGET-1\n");

        SmtpClient.Answer answer = send("orders@orderflow.example", raw);

        assertThat(answer.text()).isEqualTo("550 5.7.1 Sender authentication failed for buyer@acme.example: "
                + "the mail has no Authentication-Results from the trusted relay");
        assertNothingStarted(messageId);
    }

    @Test
    void a_forged_pass_directly_under_the_relays_own_header_does_not_outvote_it() {
        String messageId = messageId();
        // The relay's header on the first line, the sender's forgery with the same authserv-id right under it.
        String results = "mx.orderflow.local; dmarc=none header.from=acme.example; spf=softfail smtp.mailfrom=acme.example\r\n"
                + "Authentication-Results: mx.orderflow.local; dmarc=pass header.from=acme.example; "
                + "spf=pass smtp.mailfrom=acme.example; dkim=pass header.d=acme.example";

        SmtpClient.Answer answer = send("orders@orderflow.example",
                mail("buyer@acme.example", messageId, results, "3 x WIDGET-1\n"));

        assertThat(answer.code()).isEqualTo(550);
        assertThat(answer.text()).contains("5.7.1 Sender authentication failed for buyer@acme.example")
                .contains("dmarc=none").doesNotContain(TRUSTED_AUTHSERV_ID);
        assertNothingStarted(messageId);
    }

    @Test
    void the_body_of_a_refused_mail_is_never_parsed_and_a_pdf_in_it_is_not_opened() {
        String fromStranger = messageId();
        String notAllowed = messageId();
        String passing = messageId();

        SmtpClient.Answer stranger = SmtpClient.send(port(), "orders@orderflow.example",
                withBrokenPdf("buyer@acme.example", fromStranger, DMARC_PASS + "acme.example"), STRANGER);
        SmtpClient.Answer outsider = send("orders@orderflow.example",
                withBrokenPdf("nobody@outside.example", notAllowed, DMARC_PASS + "outside.example"));
        SmtpClient.Answer customer = send("orders@orderflow.example",
                withBrokenPdf("buyer@acme.example", passing, DMARC_PASS + "acme.example"));

        // Parsing the PDF fails, so a refusal that is not about the PDF was made before it was opened.
        assertThat(customer.text()).as("the PDF is opened for a sender who passed")
                .startsWith("550 5.6.0 The mail could not be read");
        assertThat(stranger.text()).startsWith("550 5.7.1 Sender authentication failed for buyer@acme.example");
        assertThat(outsider.text()).startsWith("550 5.7.1 nobody@outside.example is not allowed");
        assertNothingStarted(fromStranger);
        assertNothingStarted(notAllowed);
        assertNothingStarted(passing);
    }

    @Test
    void the_allowlist_lets_in_a_listed_address_and_anyone_at_a_listed_domain_and_nobody_else() {
        String address = messageId();
        String domain = messageId();
        String stranger = messageId();

        SmtpClient.Answer byAddress = send("orders@orderflow.example",
                mail("partner@outside.example", address, DMARC_PASS + "outside.example", "2 x WIDGET-2\n"));
        SmtpClient.Answer byDomain = send("orders@orderflow.example",
                mail("someone@friends.example", domain, DMARC_PASS + "friends.example", "2 x WIDGET-2\n"));
        SmtpClient.Answer refused = send("orders@orderflow.example",
                mail("stranger@outside.example", stranger, DMARC_PASS + "outside.example", "2 x WIDGET-2\n"));

        assertThat(byAddress.code()).isEqualTo(250);
        assertThat(started(address).input().get("customerId").asString()).isEqualTo("partner@outside.example");
        assertThat(byDomain.code()).isEqualTo(250);
        assertThat(refused.code()).isEqualTo(550);
        assertThat(refused.text()).contains("5.7.1 stranger@outside.example is not allowed to place orders by email")
                .doesNotContain("partner@outside.example").doesNotContain("friends.example");
        assertNothingStarted(stranger);
    }

    @Test
    void a_redelivered_mail_answers_250_with_the_same_order_and_starts_nothing_and_sends_no_second_reply() {
        String messageId = messageId();
        String raw = mail("buyer@acme.example", messageId, DMARC_PASS + "acme.example", "3 x WIDGET-1\n");

        SmtpClient.Answer first = send("orders@orderflow.example", raw);
        SmtpClient.Answer again = send("orders@orderflow.example", raw);

        String orderId = orderIdOf(messageId);
        assertThat(first.text()).contains("Accepted: order " + orderId);
        assertThat(again.code()).isEqualTo(250);
        assertThat(again.text()).contains("Already received as order " + orderId + "; nothing new was started");
        assertThat(PROCESSOR.started()).filteredOn(s -> s.orderId().equals(orderId)).hasSize(1);
        assertThat(PROCESSOR.received()).filteredOn(e -> e.command().orderId().equals(orderId)).hasSize(2);
        // A later mail's reply arrives after the first one's; by then a reply to the re-delivery would have too.
        String later = messageId();
        send("orders@orderflow.example", mail("buyer@acme.example", later, DMARC_PASS + "acme.example", "1 x GADGET-1\n"));
        replyTo(later);
        assertThat(repliesTo(messageId)).hasSize(1);
    }

    @Test
    void another_mail_with_a_used_message_id_is_refused_and_starts_nothing() {
        String messageId = messageId();
        send("orders@orderflow.example", mail("buyer@acme.example", messageId, DMARC_PASS + "acme.example", "3 x WIDGET-1\n"));

        SmtpClient.Answer other = send("orders@orderflow.example",
                mail("buyer@acme.example", messageId, DMARC_PASS + "acme.example", "9 x TONER-K\n"));

        assertThat(other.code()).isEqualTo(550);
        assertThat(other.text()).contains("Message-ID " + messageId + " was already used by a different mail");
        assertThat(PROCESSOR.started()).filteredOn(s -> s.orderId().equals(orderIdOf(messageId))).hasSize(1)
                .allSatisfy(s -> assertThat(s.input().get("documentText").asString()).isEqualTo("3 x WIDGET-1"));
    }

    @Test
    void a_mail_over_the_size_limit_is_refused_with_552_and_the_limit() {
        String declared = messageId();
        String undeclared = messageId();
        String big = "1 x WIDGET-1 " + "x".repeat(100) + "\n";
        String body = big.repeat(250); // about 28 KB, over the 20,000 bytes of this test

        SmtpClient.Answer jakarta = send("orders@orderflow.example",
                mail("buyer@acme.example", declared, DMARC_PASS + "acme.example", body));
        SmtpClient.Answer raw = SmtpClient.sendRaw(port(), "buyer@acme.example", "orders@orderflow.example",
                mail("buyer@acme.example", undeclared, DMARC_PASS + "acme.example", body));

        assertThat(jakarta.code()).isEqualTo(552);
        assertThat(jakarta.text()).isEqualTo("552 5.3.4 Message too large: the limit is 20000 bytes");
        assertThat(raw.code()).isEqualTo(552);
        assertThat(raw.text()).isEqualTo("552 5.3.4 Message too large: the limit is 20000 bytes");
        assertNothingStarted(declared);
        assertNothingStarted(undeclared);
    }

    @Test
    void a_mail_without_any_text_is_refused_with_what_to_write() {
        String messageId = messageId();
        SmtpClient.Answer answer = send("orders@orderflow.example",
                mail("buyer@acme.example", messageId, DMARC_PASS + "acme.example", "\n"));

        assertThat(answer.code()).isEqualTo(550);
        assertThat(answer.text()).contains("5.6.0 No order text found");
        assertNothingStarted(messageId);
    }

    @Test
    void the_reply_threads_under_the_mail_and_says_the_order_what_was_understood_and_where_to_follow_it()
            throws Exception {
        String messageId = messageId();
        String raw = mail("buyer@acme.example", messageId, DMARC_PASS + "acme.example", "3 x WIDGET-1 Blue widget\n")
                .replace("Subject: PO 4711", "References: <first@acme.example>\r\nSubject: PO 4711");

        send("sales@orderflow.example", raw);

        String orderId = orderIdOf(messageId);
        MimeMessage reply = replyTo(messageId);
        assertThat(reply.getHeader("In-Reply-To", null)).isEqualTo(messageId);
        assertThat(reply.getHeader("References", null)).isEqualTo("<first@acme.example> " + messageId);
        assertThat(reply.getHeader("Auto-Submitted", null)).isEqualTo("auto-replied");
        assertThat(reply.getSubject()).isEqualTo("Re: PO 4711 [order " + orderId + "]");
        assertThat(reply.getFrom()[0].toString()).isEqualTo("orders@orderflow.example");
        assertThat(reply.getAllRecipients()[0].toString()).isEqualTo("buyer@acme.example");
        assertThat(GreenMailUtil.getBody(reply).replace("\r\n", "\n").strip()).isEqualTo("""
                Hello ACME GmbH,

                your mail to sales@orderflow.example started order %s (Flow b2b_order).

                What we understood:
                  Customer: ACME GmbH (acme_gmbh)
                  Read from: the mail text
                  Order lines:
                    3 x WIDGET-1 Blue widget

                Follow the order: https://orders.example.com/orders/%s

                This is an automatic reply to your message %s.""".formatted(orderId, orderId, messageId));
    }

    @Test
    void the_text_of_a_pdf_attachment_is_read_after_the_mail_text() throws Exception {
        String messageId = messageId();
        String pdf = Base64.getMimeEncoder().encodeToString(pdf("3 x WIDGET-1 Blue widget", "2 x GADGET-1"));
        String raw = """
                Authentication-Results: mx.orderflow.local; dmarc=pass header.from=acme.example\r
                From: buyer@acme.example\r
                To: orders@orderflow.example\r
                Subject: PO 4712\r
                Message-ID: %s\r
                MIME-Version: 1.0\r
                Content-Type: multipart/mixed; boundary="b1"\r
                \r
                --b1\r
                Content-Type: text/plain; charset=UTF-8\r
                \r
                Please find our purchase order attached.\r
                --b1\r
                Content-Type: application/pdf; name="po-4712.pdf"\r
                Content-Disposition: attachment; filename="po-4712.pdf"\r
                Content-Transfer-Encoding: base64\r
                \r
                %s\r
                --b1--\r
                """.formatted(messageId, pdf);

        assertThat(send("orders@orderflow.example", raw).code()).isEqualTo(250);

        String text = started(messageId).input().get("documentText").asString();
        assertThat(text).startsWith("Please find our purchase order attached.");
        assertThat(text.lines().map(String::strip)).contains("3 x WIDGET-1 Blue widget", "2 x GADGET-1");
        assertThat(GreenMailUtil.getBody(replyTo(messageId))).contains("Read from: the mail text, po-4712.pdf");
    }

    @Test
    void a_pdf_compression_bomb_is_not_read_and_the_reply_says_so_while_the_mail_text_starts_the_order()
            throws Exception {
        String messageId = messageId();
        String raw = withPdf(messageId, "3 x WIDGET-1\r\n", "bomb.pdf", Pdfs.bomb(256L * 1024 * 1024));

        SmtpClient.Answer answer = send("orders@orderflow.example", raw);

        assertThat(answer.code()).isEqualTo(250);
        assertThat(started(messageId).input().get("documentText").asString()).isEqualTo("3 x WIDGET-1");
        assertThat(GreenMailUtil.getBody(replyTo(messageId))).contains("Read from: the mail text")
                .contains("Not read: bomb.pdf: its content unpacks to more than 32 MiB");
    }

    @Test
    void a_mail_whose_only_text_is_a_pdf_compression_bomb_is_refused_with_the_reason() throws Exception {
        String messageId = messageId();
        String raw = withPdf(messageId, "", "bomb.pdf", Pdfs.bomb(256L * 1024 * 1024));

        SmtpClient.Answer answer = send("orders@orderflow.example", raw);

        assertThat(answer.text()).startsWith("550 5.6.0 No order text found (not read: bomb.pdf: its content "
                + "unpacks to more than 32 MiB)");
        assertNothingStarted(messageId);
    }

    // ---- helpers -------------------------------------------------------------------------------------------------

    /** A mail from a customer with {@code text} as its body and {@code pdf} attached. */
    private static String withPdf(String messageId, String text, String fileName, byte[] pdf) {
        return """
                Authentication-Results: mx.orderflow.local; dmarc=pass header.from=acme.example\r
                From: buyer@acme.example\r
                To: orders@orderflow.example\r
                Subject: PO 4714\r
                Message-ID: %s\r
                MIME-Version: 1.0\r
                Content-Type: multipart/mixed; boundary="b1"\r
                \r
                --b1\r
                Content-Type: text/plain; charset=UTF-8\r
                \r
                %s\r
                --b1\r
                Content-Type: application/pdf; name="%s"\r
                Content-Disposition: attachment; filename="%s"\r
                Content-Transfer-Encoding: base64\r
                \r
                %s\r
                --b1--\r
                """.formatted(messageId, text, fileName, fileName, Base64.getMimeEncoder().encodeToString(pdf));
    }

    /** A mail whose attachment says it is a PDF and is not one: opening it fails. */
    private static String withBrokenPdf(String from, String messageId, String authenticationResults) {
        return """
                Authentication-Results: %s\r
                From: %s\r
                To: orders@orderflow.example\r
                Subject: PO 4713\r
                Message-ID: %s\r
                MIME-Version: 1.0\r
                Content-Type: multipart/mixed; boundary="b1"\r
                \r
                --b1\r
                Content-Type: text/plain; charset=UTF-8\r
                \r
                3 x WIDGET-1\r
                --b1\r
                Content-Type: application/pdf; name="po.pdf"\r
                Content-Disposition: attachment; filename="po.pdf"\r
                Content-Transfer-Encoding: base64\r
                \r
                %s\r
                --b1--\r
                """.formatted(authenticationResults, from, messageId,
                Base64.getMimeEncoder().encodeToString("%PDF-1.7 not really a PDF".getBytes()));
    }

    private int port() {
        return listener.port().orElseThrow();
    }

    private SmtpClient.Answer send(String recipient, String raw) {
        return SmtpClient.send(port(), recipient, raw);
    }

    static String messageId() {
        return "<" + UUID.randomUUID() + "@mail.acme.example>";
    }

    static String orderIdOf(String messageId) {
        return OrderIds.fromIdempotencyKey("mail:" + messageId);
    }

    static String mail(String from, String messageId, String authenticationResults, String body) {
        return (authenticationResults == null ? "" : "Authentication-Results: " + authenticationResults + "\r\n")
                + "From: " + from + "\r\n"
                + "To: orders@orderflow.example\r\n"
                + "Subject: PO 4711\r\n"
                + "Message-ID: " + messageId + "\r\n"
                + "Date: Mon, 23 Nov 2026 10:00:00 +0000\r\n"
                + "MIME-Version: 1.0\r\n"
                + "Content-Type: text/plain; charset=UTF-8\r\n"
                + "\r\n"
                + body.replace("\n", "\r\n");
    }

    /**
     * The start command a mail produced. It is sent before the SMTP answer, but the stand-in processor records it on
     * its own reader thread, which may come a moment after the answer: awaited, not assumed.
     */
    private static OrderCommand.StartOrder started(String messageId) {
        String orderId = orderIdOf(messageId);
        return await().atMost(Duration.ofSeconds(10)).alias("an order started for " + messageId)
                .until(() -> PROCESSOR.started().stream().filter(s -> s.orderId().equals(orderId)).findFirst(),
                        java.util.Optional::isPresent).orElseThrow();
    }

    private static void assertNothingStarted(String messageId) {
        String orderId = orderIdOf(messageId);
        assertThat(PROCESSOR.received()).noneMatch(e -> e.command().orderId().equals(orderId));
    }

    private static List<MimeMessage> repliesTo(String messageId) {
        return Arrays.stream(RELAY.getReceivedMessages()).filter(m -> {
            try {
                return messageId.equals(m.getHeader("In-Reply-To", null));
            } catch (MessagingException e) {
                return false;
            }
        }).toList();
    }

    private static MimeMessage replyTo(String messageId) {
        await().atMost(Duration.ofSeconds(20)).until(() -> !repliesTo(messageId).isEmpty());
        return repliesTo(messageId).getFirst();
    }

    private static byte[] pdf(String... lines) throws IOException {
        try (PDDocument document = new PDDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            PDPage page = new PDPage();
            document.addPage(page);
            try (PDPageContentStream content = new PDPageContentStream(document, page)) {
                content.beginText();
                content.setFont(new PDType1Font(Standard14Fonts.FontName.HELVETICA), 12);
                content.setLeading(16);
                content.newLineAtOffset(72, 700);
                for (String line : lines) {
                    content.showText(line);
                    content.newLine();
                }
                content.endText();
            }
            document.save(out);
            return out.toByteArray();
        }
    }
}
