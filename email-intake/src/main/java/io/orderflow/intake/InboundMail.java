package io.orderflow.intake;

import java.util.List;

/**
 * What intake reads from one mail.
 *
 * @param sender              the From address, lower case
 * @param messageId           the Message-ID header as written ({@code <...>}), or {@code null}
 * @param subject             the subject, or an empty string
 * @param references          the References header, or {@code null}
 * @param authenticationResults the topmost run of {@code Authentication-Results} headers, top first (only these
 *                              can be the receiving relay's own)
 * @param documentText        the text body and the text of text and PDF attachments, at most
 *                            {@link MailReader#MAX_DOCUMENT_CHARS} characters
 * @param readFrom            where the text came from: {@code the mail text}, attachment file names
 * @param truncated           true when the text was longer and was cut
 * @param notRead             attachments, or parts of them, left unread and why ({@code po.pdf: its content
 *                            unpacks to more than 32 MiB}), for the sender
 * @param automatic           an automatic mail (Auto-Submitted, a bulk or list Precedence): never replied to
 */
record InboundMail(String sender, String messageId, String subject, String references,
                   List<String> authenticationResults, String documentText, List<String> readFrom,
                   boolean truncated, List<String> notRead, boolean automatic) {
}
