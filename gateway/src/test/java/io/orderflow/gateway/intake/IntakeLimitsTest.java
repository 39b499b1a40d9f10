package io.orderflow.gateway.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.gateway.GatewayApplication;
import io.orderflow.intake.SmtpListener;
import io.orderflow.kafka.testing.TestKafka;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * What one client or one sender can hold of the SMTP listener, seen from an SMTP client: the size limit advertised
 * and enforced before and during {@code DATA} with the dialogue kept in step, a connection limit per client address
 * that a trusted relay (127.0.0.1 here) is not held to, and a rate per envelope sender.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.config.name=gateway", "orderflow.intake.smtp-port=0",
                "orderflow.intake.trusted-relays=127.0.0.1", "orderflow.intake.reply=false",
                "orderflow.intake.max-message-bytes=20000", "orderflow.intake.connections-per-client=2",
                "orderflow.intake.mails-per-sender-per-minute=3"})
class IntakeLimitsTest {

    static final String STRANGER = "127.0.0.2";
    static final String RELAY = "127.0.0.1";
    static final String TOO_LARGE = "552 5.3.4 Message too large: the limit is 20000 bytes";

    @DynamicPropertySource
    static void settings(DynamicPropertyRegistry registry) {
        registry.add("orderflow.kafka.bootstrap-servers", TestKafka::bootstrapServers);
    }

    @Autowired
    SmtpListener listener;

    @Test
    void the_size_limit_is_advertised_and_a_mail_declared_larger_is_refused_at_mail_from() {
        try (Dialogue smtp = new Dialogue(RELAY)) {
            assertThat(smtp.send("EHLO relay.test")).contains("250-SIZE 20000");
            assertThat(smtp.send("MAIL FROM:<big@acme.example> SIZE=20001"))
                    .isEqualTo("552 5.3.4 Message size exceeds fixed limit");
            assertThat(smtp.send("MAIL FROM:<big@acme.example> SIZE=20000")).startsWith("250");
        }
    }

    @Test
    void a_mail_larger_than_declared_is_refused_at_the_end_of_data_and_none_of_it_is_read_as_commands() {
        try (Dialogue smtp = new Dialogue(RELAY)) {
            smtp.send("EHLO relay.test");
            assertThat(smtp.send("MAIL FROM:<sneaky@acme.example>")).startsWith("250");
            assertThat(smtp.send("RCPT TO:<orders@orderflow.example>")).startsWith("250");
            assertThat(smtp.send("DATA")).startsWith("354");
            // past the limit, lines that would each be answered (500, 250) if they were read as commands
            String body = "Subject: big\r\n\r\n" + "1 x WIDGET-1\r\n".repeat(1_500) + "NOOP\r\nRSET\r\n".repeat(200);
            assertThat(smtp.data(body)).isEqualTo(TOO_LARGE);
            assertThat(smtp.send("NOOP")).as("the next answer is the NOOP's").startsWith("250");
            assertThat(smtp.send("RSET")).startsWith("250");
            assertThat(smtp.send("MAIL FROM:<sneaky@acme.example>")).startsWith("250");
        }
    }

    @Test
    void a_mail_far_over_the_limit_is_refused_and_its_connection_closed() {
        try (Dialogue smtp = new Dialogue(RELAY)) {
            smtp.send("EHLO relay.test");
            smtp.send("MAIL FROM:<flood-data@acme.example>");
            smtp.send("RCPT TO:<orders@orderflow.example>");
            smtp.send("DATA");
            String answer = smtp.data("Subject: huge\r\n\r\n" + "x".repeat(70).concat("\r\n").repeat(1_000));
            // the answer, unless the close reached the client first
            assertThat(answer).matches(a -> a == null || a.startsWith("552 5.3.4"), "552 or closed");
            assertThat(smtp.closed()).isTrue();
        }
        try (Dialogue next = new Dialogue(RELAY)) {
            assertThat(next.send("NOOP")).startsWith("250");
        }
    }

    @Test
    void a_client_that_is_not_a_relay_holds_at_most_its_connections_and_the_relay_is_not_held_to_it() {
        List<Dialogue> open = new ArrayList<>();
        try {
            open.add(new Dialogue(STRANGER));
            open.add(new Dialogue(STRANGER));
            try (Dialogue third = new Dialogue(STRANGER)) {
                assertThat(third.greeting)
                        .isEqualTo("421 4.7.0 Too many connections from your address (at most 2 at once); try again later");
                assertThat(third.closed()).isTrue();
            }
            for (int i = 0; i < 3; i++) {
                open.add(new Dialogue(RELAY));
            }
            assertThat(open).allSatisfy(d -> assertThat(d.greeting).startsWith("220"));

            open.removeFirst().close();
            await().atMost(Duration.ofSeconds(10)).alias("a closed connection gives its place back").until(() -> {
                try (Dialogue again = new Dialogue(STRANGER)) {
                    return again.greeting.startsWith("220");
                }
            });
        } finally {
            open.forEach(Dialogue::close);
        }
    }

    @Test
    void one_sender_starts_at_most_its_mails_a_minute_whoever_relays_them() {
        try (Dialogue smtp = new Dialogue(RELAY)) {
            smtp.send("EHLO relay.test");
            for (int i = 0; i < 3; i++) {
                assertThat(smtp.send("MAIL FROM:<Runaway@Acme.example>")).startsWith("250");
                assertThat(smtp.send("RSET")).startsWith("250");
            }
            assertThat(smtp.send("MAIL FROM:<runaway@acme.example>"))
                    .matches("451 4\\.7\\.1 Too many mails from runaway@acme\\.example; try again in \\d+ s");
            assertThat(smtp.send("MAIL FROM:<someone-else@acme.example>")).startsWith("250");
        }
    }

    /** One SMTP connection from {@code localAddress}, typed by hand. */
    private final class Dialogue implements AutoCloseable {

        final String greeting;
        private final Socket socket;
        private final BufferedReader in;
        private final OutputStream out;

        Dialogue(String localAddress) {
            try {
                socket = new Socket(InetAddress.getLoopbackAddress(), listener.port().orElseThrow(),
                        InetAddress.getByName(localAddress), 0);
                socket.setSoTimeout(30_000);
                in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
                out = socket.getOutputStream();
                greeting = read();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        String send(String command) {
            try {
                out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return read();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Sends a mail's content and its end; the answer, or {@code null} when the connection was closed first. */
        String data(String content) {
            try {
                out.write(content.getBytes(StandardCharsets.US_ASCII));
                out.write("\r\n.\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (SocketException e) {
                return null;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            try {
                return read();
            } catch (SocketException e) {
                return null;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Whether the server closed the connection. */
        boolean closed() {
            try {
                return in.readLine() == null;
            } catch (SocketException e) {
                return true;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** One reply, possibly multi-line; {@code null} when the connection closed first. */
        private String read() throws IOException {
            StringBuilder reply = new StringBuilder();
            String line;
            do {
                line = in.readLine();
                if (line == null) {
                    return reply.isEmpty() ? null : reply.toString().strip();
                }
                reply.append(line).append('\n');
            } while (line.length() > 3 && line.charAt(3) == '-');
            return reply.toString().strip();
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closing
            }
        }
    }
}
