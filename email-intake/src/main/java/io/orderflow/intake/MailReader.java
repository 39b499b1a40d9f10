package io.orderflow.intake;

import jakarta.mail.Address;
import jakarta.mail.BodyPart;
import jakarta.mail.Header;
import jakarta.mail.MessagingException;
import jakarta.mail.Multipart;
import jakarta.mail.Part;
import jakarta.mail.Session;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.select.NodeTraversor;
import org.jsoup.select.NodeVisitor;

/**
 * Parses a raw mail (RFC 5322, MIME) into an {@link InboundMail}: the sender, the Message-ID, and the text to read an
 * order from, which is the text body (plain text, else HTML without its tags) followed by the text of every
 * {@code text/*} and PDF attachment, cut at {@value #MAX_DOCUMENT_CHARS} characters (the limit of
 * {@code input.documentText}). A PDF is read within the bounds of {@link PdfText}; one that breaks them is named,
 * with the reason, in {@link InboundMail#notRead}.
 *
 * <p>In two steps: {@link #open} reads the header only, so intake can check the sender first; {@link Opened#read}
 * parses the body (MIME parts, HTML, PDFs) and runs only for a sender that passed.
 */
final class MailReader {

    static final int MAX_DOCUMENT_CHARS = 50_000;

    /** The HTML elements whose end is a line end in the text. */
    private static final Set<String> LINE_ENDS = Set.of("p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6");

    private static final Session SESSION = Session.getInstance(new Properties());

    private MailReader() {
    }

    /** Both steps at once. */
    static InboundMail read(byte[] raw) throws IntakeRefusal {
        return open(raw).read();
    }

    /**
     * Reads the header of {@code raw}; the body stays unparsed bytes until {@link Opened#read}. Fails for a mail
     * without exactly one From address.
     */
    static Opened open(byte[] raw) throws IntakeRefusal {
        try {
            MimeMessage message = new MimeMessage(SESSION, new ByteArrayInputStream(raw));
            Address[] from = message.getFrom();
            if (from == null || from.length != 1 || !(from[0] instanceof InternetAddress sender)
                    || sender.getAddress() == null || !sender.getAddress().contains("@")) {
                throw IntakeRefusal.unreadable("The mail needs exactly one From address");
            }
            return new Opened(message, Addresses.normalize(sender.getAddress()), topmostAuthenticationResults(message));
        } catch (MessagingException e) {
            throw IntakeRefusal.unreadable("The mail could not be read: " + e.getMessage());
        }
    }

    /**
     * A mail whose header was read.
     *
     * @param sender                the From address, lower case
     * @param authenticationResults the topmost run of {@code Authentication-Results} headers, top first
     */
    record Opened(MimeMessage message, String sender, List<String> authenticationResults) {

        /** Parses the body: the text of the mail and its attachments. */
        InboundMail read() throws IntakeRefusal {
            try {
                Texts texts = new Texts();
                collect(message, texts, true);
                String text = texts.joined();
                boolean truncated = text.length() > MAX_DOCUMENT_CHARS;
                if (truncated) {
                    text = cut(text);
                }
                return new InboundMail(sender, message.getMessageID(),
                        message.getSubject() == null ? "" : message.getSubject(),
                        message.getHeader("References", " "), authenticationResults, text,
                        List.copyOf(texts.sources), truncated, List.copyOf(texts.notRead), automatic(message));
            } catch (MessagingException | IOException e) {
                throw IntakeRefusal.unreadable("The mail could not be read: " + e.getMessage());
            }
        }
    }

    /** The text parts in order: the body first, then the attachments. */
    private static final class Texts {
        private final StringBuilder body = new StringBuilder();
        private final StringBuilder attachments = new StringBuilder();
        private final List<String> sources = new ArrayList<>();
        private final List<String> notRead = new ArrayList<>();
        private String html;

        String joined() {
            String main = body.isEmpty() && html != null ? html : body.toString();
            if (!main.isBlank() && !sources.contains("the mail text")) {
                sources.addFirst("the mail text");
            }
            String all = main.isBlank() ? attachments.toString() : main + "\n\n" + attachments;
            return all.strip();
        }
    }

    private static void collect(Part part, Texts texts, boolean top) throws MessagingException, IOException {
        if (part.isMimeType("multipart/*") && part.getContent() instanceof Multipart multipart) {
            for (int i = 0; i < multipart.getCount(); i++) {
                BodyPart child = multipart.getBodyPart(i);
                collect(child, texts, false);
            }
            return;
        }
        String fileName = part.getFileName();
        boolean attachment = !top && (Part.ATTACHMENT.equalsIgnoreCase(part.getDisposition()) || fileName != null);
        if (part.isMimeType("application/pdf")
                || (fileName != null && fileName.toLowerCase(Locale.ROOT).endsWith(".pdf"))) {
            String name = fileName == null ? "a PDF attachment" : fileName;
            PdfText.Outcome pdf;
            try (InputStream in = part.getInputStream()) {
                pdf = PdfText.read(in.readAllBytes(), PdfText.Limits.DEFAULT);
            }
            switch (pdf) {
                case PdfText.Read read -> {
                    append(texts.attachments, read.text());
                    texts.sources.add(name);
                    if (read.pagesLeftOut() > 0) {
                        texts.notRead.add(name + ": the " + read.pagesLeftOut() + " pages after the first "
                                + PdfText.Limits.DEFAULT.maxPages());
                    }
                }
                case PdfText.NotRead notRead -> texts.notRead.add(name + ": " + notRead.reason());
            }
        } else if (attachment && part.isMimeType("text/*")) {
            append(texts.attachments, text(part));
            texts.sources.add(fileName == null ? "a text attachment" : fileName);
        } else if (part.isMimeType("text/plain")) {
            append(texts.body, text(part));
        } else if (part.isMimeType("text/html") && texts.html == null) {
            texts.html = htmlText(text(part)).replace("\r\n", "\n");
        }
    }

    /** A text part in its charset; Jakarta Mail decodes only some text types itself ({@code text/csv} it does not). */
    private static String text(Part part) throws MessagingException, IOException {
        if (part.getContent() instanceof String decoded) {
            return decoded;
        }
        String charset = new ContentType(part.getContentType()).getParameter("charset");
        try (InputStream in = part.getInputStream()) {
            return new String(in.readAllBytes(), charset == null ? StandardCharsets.UTF_8 : Charset.forName(charset));
        } catch (IllegalArgumentException e) {
            throw new IOException("Unknown charset " + charset, e);
        }
    }

    /**
     * HTML as text: the ends of paragraphs, list items, table rows, divisions and headings and each {@code <br>}
     * become line ends, tags and scripts and styles go, entities are decoded. jsoup parses in one pass whatever the
     * HTML is (unclosed tags, huge attributes), so the sender's HTML cannot make this slow.
     */
    static String htmlText(String html) {
        StringBuilder text = new StringBuilder(html.length() / 2);
        NodeTraversor.traverse(new NodeVisitor() {
            @Override
            public void head(Node node, int depth) {
                if (node instanceof TextNode textNode) {
                    text.append(textNode.getWholeText());
                } else if (node instanceof Element element && element.nameIs("br")) {
                    text.append('\n');
                }
            }

            @Override
            public void tail(Node node, int depth) {
                if (node instanceof Element element && LINE_ENDS.contains(element.normalName())) {
                    text.append('\n');
                }
            }
        }, Jsoup.parse(html).body());
        return text.toString().replace('\u00A0', ' ');
    }

    private static void append(StringBuilder into, String text) {
        if (text == null || text.isBlank()) {
            return;
        }
        if (!into.isEmpty()) {
            into.append("\n\n");
        }
        into.append(text.replace("\r\n", "\n").replace('\r', '\n').strip());
    }

    /** At most {@value #MAX_DOCUMENT_CHARS} characters, ending at a line end where there is one, so no line is half read. */
    private static String cut(String text) {
        String head = text.substring(0, MAX_DOCUMENT_CHARS);
        if (Character.isHighSurrogate(head.charAt(head.length() - 1))) {
            head = head.substring(0, head.length() - 1);
        }
        int lineEnd = head.lastIndexOf('\n');
        return lineEnd > 0 ? head.substring(0, lineEnd) : head;
    }

    /**
     * The topmost run of {@code Authentication-Results} headers: the ones from the very first header line of the mail
     * down to the first header of another name. A relay adds its own on top of the mail (RFC 8601, section 5); a run
     * that starts further down (below a {@code Received}, say) was written before the relay saw the mail, by whoever
     * sent it, and is not read. A mail whose first header is not an {@code Authentication-Results} has none.
     */
    private static List<String> topmostAuthenticationResults(MimeMessage message) throws MessagingException {
        List<String> run = new ArrayList<>();
        Enumeration<Header> headers = message.getAllHeaders();
        while (headers.hasMoreElements()) {
            Header header = headers.nextElement();
            if (!header.getName().equalsIgnoreCase("Authentication-Results")) {
                break;
            }
            run.add(header.getValue());
        }
        return List.copyOf(run);
    }

    private static boolean automatic(MimeMessage message) throws MessagingException {
        String autoSubmitted = message.getHeader("Auto-Submitted", ",");
        String precedence = message.getHeader("Precedence", ",");
        return (autoSubmitted != null && !autoSubmitted.strip().equalsIgnoreCase("no"))
                || (precedence != null && precedence.toLowerCase(Locale.ROOT).matches(".*(bulk|list|junk).*"));
    }
}
