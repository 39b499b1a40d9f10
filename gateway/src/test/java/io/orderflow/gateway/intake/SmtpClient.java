package io.orderflow.gateway.intake;

import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSenderFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;
import org.eclipse.angus.mail.smtp.SMTPTransport;

/** TEST ONLY. Sends mail to a port as a mail relay would, with Jakarta Mail, and tells the server's final answer. */
final class SmtpClient {

    /** The SMTP answer to the mail: 250 with the order id, or the refusal. */
    record Answer(int code, String text) {
    }

    private SmtpClient() {
    }

    /** Sends a raw RFC 5322 message (CRLF or LF line ends) to {@code recipient}, connecting from 127.0.0.1. */
    static Answer send(int port, String recipient, String rawMessage) {
        return send(port, recipient, rawMessage, "127.0.0.1");
    }

    /**
     * As {@link #send(int, String, String)}, connecting from {@code localAddress}: any 127.x.y.z address reaches the
     * listener over loopback, so one test can be a trusted relay (127.0.0.1) and a stranger (127.0.0.2).
     */
    static Answer send(int port, String recipient, String rawMessage, String localAddress) {
        Properties props = new Properties();
        props.put("mail.smtp.host", "127.0.0.1");
        props.put("mail.smtp.port", String.valueOf(port));
        props.put("mail.smtp.localaddress", localAddress);
        props.put("mail.smtp.timeout", "30000");
        Session session = Session.getInstance(props);
        try {
            MimeMessage message = new MimeMessage(session,
                    new ByteArrayInputStream(rawMessage.getBytes(StandardCharsets.UTF_8)));
            return send(session, message, recipient);
        } catch (MessagingException e) {
            throw new IllegalStateException(e);
        }
    }

    static Answer send(Session session, MimeMessage message, String recipient) {
        try (SMTPTransport transport = (SMTPTransport) session.getTransport("smtp")) {
            transport.connect();
            try {
                transport.sendMessage(message, new Address[]{new InternetAddress(recipient)});
                return new Answer(transport.getLastReturnCode(), transport.getLastServerResponse().strip());
            } catch (MessagingException e) {
                return refusal(e);
            }
        } catch (MessagingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The SMTP refusal in {@code e} or in the exceptions it chains. */
    private static Answer refusal(MessagingException e) throws MessagingException {
        for (Exception at = e; at != null; at = at instanceof MessagingException m ? m.getNextException() : null) {
            switch (at) {
                case SMTPSendFailedException failed -> {
                    return new Answer(failed.getReturnCode(), failed.getMessage().strip());
                }
                case SMTPSenderFailedException failed -> {
                    return new Answer(failed.getReturnCode(), failed.getMessage().strip());
                }
                case SMTPAddressFailedException failed -> {
                    return new Answer(failed.getReturnCode(), failed.getMessage().strip());
                }
                default -> {
                }
            }
        }
        throw e;
    }

    /**
     * The SMTP dialogue by hand, without the {@code SIZE} extension a Jakarta Mail client uses, so the message
     * reaches {@code DATA} whatever its size: the answer to the end of {@code DATA}.
     */
    static Answer sendRaw(int port, String from, String recipient, String rawMessage) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.US_ASCII));
            OutputStream out = socket.getOutputStream();
            read(in);
            command(out, in, "HELO relay.test");
            command(out, in, "MAIL FROM:<" + from + ">");
            command(out, in, "RCPT TO:<" + recipient + ">");
            command(out, in, "DATA");
            String body = rawMessage.replace("\r\n", "\n").replace("\n", "\r\n").replace("\r\n.", "\r\n..");
            out.write(body.getBytes(StandardCharsets.UTF_8));
            out.write("\r\n.\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = read(in);
            command(out, in, "QUIT");
            return new Answer(Integer.parseInt(answer.substring(0, 3)), answer);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The answers to {@code commands}, sent one by one after the greeting (no {@code DATA}). */
    static java.util.List<String> dialogue(int port, String... commands) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.US_ASCII));
            OutputStream out = socket.getOutputStream();
            read(in);
            java.util.List<String> answers = new java.util.ArrayList<>();
            for (String line : commands) {
                answers.add(command(out, in, line));
            }
            return answers;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String command(OutputStream out, BufferedReader in, String line) throws IOException {
        out.write((line + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return read(in);
    }

    /** One reply, possibly multi-line ({@code 250-...} then {@code 250 ...}). */
    private static String read(BufferedReader in) throws IOException {
        StringBuilder reply = new StringBuilder();
        String line;
        do {
            line = in.readLine();
            if (line == null) {
                throw new IOException("Connection closed");
            }
            reply.append(line).append('\n');
        } while (line.length() > 3 && line.charAt(3) == '-');
        return reply.toString().strip();
    }
}
