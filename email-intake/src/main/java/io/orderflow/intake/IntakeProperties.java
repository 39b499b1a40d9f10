package io.orderflow.intake;

import io.orderflow.schemas.json.Json;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Settings of email intake ({@code orderflow.intake.*}, see the README's "Orders by email").
 *
 * @param mailboxes          {@code INTAKE_MAILBOXES}: JSON object of mailbox local part to flow id; blank means
 *                           {@link #DEFAULT_MAILBOXES}
 * @param requireAuth        {@code INTAKE_REQUIRE_AUTH}: only mail with a passing sender authentication result
 * @param reply              {@code INTAKE_REPLY}: acknowledge an accepted mail with a reply
 * @param allowlist          {@code INTAKE_ALLOWLIST}: a secret; extra senders, addresses or {@code @domain}, comma-separated
 * @param smtpPort           {@code INTAKE_SMTP_PORT}: the listener's port; unset (or negative) means no listener, 0 a free port
 * @param smtpHost           {@code INTAKE_SMTP_HOST}: the address the listener binds; blank means every interface
 * @param trustedRelays      {@code INTAKE_TRUSTED_RELAYS}: addresses or CIDRs of the relays whose
 *                           {@code Authentication-Results} are believed; mail from any other connection counts as
 *                           having none (see {@link TrustedRelays})
 * @param trustedAuthservId  {@code INTAKE_TRUSTED_AUTHSERV_ID}: the authserv-id of the relay whose
 *                           {@code Authentication-Results} are believed
 * @param relayHost          {@code INTAKE_RELAY_HOST}: the SMTP relay replies are sent through
 * @param relayPort          {@code INTAKE_RELAY_PORT}
 * @param from               {@code INTAKE_FROM}: the From address of replies
 * @param publicBaseUrl      {@code PUBLIC_BASE_URL}: where people open the order page, {@code <base>/orders/<id>}
 * @param maxMessageBytes    {@code INTAKE_MAX_MESSAGE_BYTES}: a larger mail is refused with 552 (the listener
 *                           advertises it with the {@code SIZE} extension)
 * @param replyWait          how long the reply waits for the order's lines to be extracted before it goes without them
 * @param connectionsPerClient    {@code INTAKE_CONNECTIONS_PER_CLIENT}: connections at once from one client address
 *                                that is not a trusted relay (see {@link SmtpLimits})
 * @param mailsPerSenderPerMinute {@code INTAKE_SENDER_RATE_LIMIT}: mail transactions a minute per envelope sender
 */
@ConfigurationProperties("orderflow.intake")
public record IntakeProperties(String mailboxes, Boolean requireAuth, Boolean reply, String allowlist,
                               Integer smtpPort, String smtpHost, List<String> trustedRelays,
                               String trustedAuthservId, String relayHost, Integer relayPort,
                               String from, String publicBaseUrl, Integer maxMessageBytes, Duration replyWait,
                               Integer connectionsPerClient, Integer mailsPerSenderPerMinute) {

    /** Two mailboxes for the B2B order flow, one for the purchase request flow. */
    public static final Map<String, String> DEFAULT_MAILBOXES = defaults();

    public static final String DEFAULT_AUTHSERV_ID = "mx.orderflow.local";

    public IntakeProperties {
        requireAuth = requireAuth == null || requireAuth;
        reply = reply == null || reply;
        allowlist = allowlist == null ? "" : allowlist;
        smtpHost = blank(smtpHost) ? null : smtpHost.strip();
        trustedRelays = trustedRelays == null ? List.of()
                : trustedRelays.stream().map(String::strip).filter(s -> !s.isEmpty()).toList();
        TrustedRelays.parse(trustedRelays); // fails at start on an entry that is not an address or a CIDR
        trustedAuthservId = blank(trustedAuthservId) ? DEFAULT_AUTHSERV_ID : trustedAuthservId.strip();
        relayHost = blank(relayHost) ? "localhost" : relayHost.strip();
        relayPort = relayPort == null ? 25 : relayPort;
        from = blank(from) ? "orders@orderflow.local" : from.strip();
        publicBaseUrl = blank(publicBaseUrl) ? "http://localhost:8080" : publicBaseUrl.strip().replaceAll("/+$", "");
        maxMessageBytes = maxMessageBytes == null || maxMessageBytes <= 0 ? 10 * 1024 * 1024 : maxMessageBytes;
        replyWait = replyWait == null ? Duration.ofSeconds(10) : replyWait;
        connectionsPerClient = connectionsPerClient == null || connectionsPerClient <= 0 ? 4 : connectionsPerClient;
        mailsPerSenderPerMinute = mailsPerSenderPerMinute == null || mailsPerSenderPerMinute <= 0 ? 30
                : mailsPerSenderPerMinute;
        mailboxMap(mailboxes); // fails at start on a malformed INTAKE_MAILBOXES, not on the first mail
    }

    /** Mailbox local part (lower case) to flow id. */
    public Map<String, String> mailboxMap() {
        return mailboxMap(mailboxes);
    }

    /** The listener's port, or empty when intake does not listen. */
    public Optional<Integer> listenerPort() {
        return smtpPort == null || smtpPort < 0 ? Optional.empty() : Optional.of(smtpPort);
    }

    /** The allowlist is a secret: it never shows in logs, so not here either. */
    @Override
    public String toString() {
        return "IntakeProperties[mailboxes=" + mailboxMap() + ", requireAuth=" + requireAuth + ", reply=" + reply
                + ", allowlist=" + (allowlist.isBlank() ? "(none)" : "(set)") + ", smtpPort=" + smtpPort
                + ", smtpHost=" + (smtpHost == null ? "(all interfaces)" : smtpHost)
                + ", trustedRelays=" + trustedRelays
                + ", trustedAuthservId=" + trustedAuthservId + ", relay=" + relayHost + ":" + relayPort
                + ", from=" + from + ", publicBaseUrl=" + publicBaseUrl + ", maxMessageBytes=" + maxMessageBytes
                + ", replyWait=" + replyWait + ", connectionsPerClient=" + connectionsPerClient
                + ", mailsPerSenderPerMinute=" + mailsPerSenderPerMinute + "]";
    }

    private static Map<String, String> mailboxMap(String json) {
        if (blank(json)) {
            return DEFAULT_MAILBOXES;
        }
        JsonNode tree;
        try {
            tree = Json.MAPPER.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("INTAKE_MAILBOXES is not a JSON object: " + e.getOriginalMessage());
        }
        if (!tree.isObject() || tree.isEmpty()) {
            throw new IllegalArgumentException("INTAKE_MAILBOXES must be a JSON object of mailbox to flow id, "
                    + "such as {\"orders\": \"b2b_order\"}");
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : tree.properties()) {
            if (!entry.getValue().isString() || entry.getValue().asString().isBlank()) {
                throw new IllegalArgumentException("INTAKE_MAILBOXES: mailbox " + entry.getKey()
                        + " must map to a flow id");
            }
            map.put(entry.getKey().strip().toLowerCase(java.util.Locale.ROOT), entry.getValue().asString());
        }
        return java.util.Collections.unmodifiableMap(map);
    }

    private static Map<String, String> defaults() {
        Map<String, String> map = new LinkedHashMap<>();
        map.put("orders", "b2b_order");
        map.put("sales", "b2b_order");
        map.put("purchasing", "purchase_request");
        return java.util.Collections.unmodifiableMap(map);
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }
}
