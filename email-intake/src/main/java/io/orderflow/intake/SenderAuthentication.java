package io.orderflow.intake;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads the {@code Authentication-Results} headers (RFC 8601) that the trusted relay added, and decides whether the
 * sender in {@code From} is authentic: DMARC passed for the From domain ({@code header.from} must name it), or SPF
 * and DKIM both passed for domains aligned with it.
 *
 * <p>Only the relay's own results count. A relay adds its header on top of the mail, above everything the sender
 * wrote (RFC 8601, section 5), so the results read are the run of {@code Authentication-Results} headers that starts
 * at the mail's very first header line (see {@link MailReader}) and carry the trusted authserv-id, up to the first
 * header of another authserv-id. A mail whose first header is not one of them has no results. Within the run, the
 * topmost header that reports a method decides it: a header under the relay's, even with the trusted id, is the
 * sender's own text, and a {@code dmarc=pass} written there does not outvote the relay's {@code dmarc=fail} or
 * {@code dmarc=none} above it. Mail that did not come from a trusted relay's connection is checked with no headers
 * at all.
 *
 * <p>The reasons never name the trusted authserv-id: a refusal goes back to whoever sent the mail.
 */
final class SenderAuthentication {

    /** The outcome, with the reason a person can act on when it failed. */
    record Verdict(boolean passed, String reason) {
    }

    /** One {@code method=result} of a header, with its properties ({@code header.from}, {@code smtp.mailfrom}, ...). */
    record Result(String method, String result, Map<String, String> properties) {

        String property(String name) {
            return properties.get(name);
        }
    }

    private SenderAuthentication() {
    }

    static final String NO_RESULTS = "the mail has no Authentication-Results from the trusted relay";

    /**
     * @param topmost the run of {@code Authentication-Results} headers from the mail's first header line, top
     *                first; empty for mail from a connection that is not a trusted relay
     */
    static Verdict check(List<String> topmost, String trustedAuthservId, String fromDomain) {
        List<Result> results = new ArrayList<>();
        Set<String> decided = new HashSet<>();
        for (String header : topmost) {
            if (!authservId(header).equalsIgnoreCase(trustedAuthservId)) {
                break; // below another relay's header: not added by the trusted relay
            }
            List<Result> own = parse(header, trustedAuthservId);
            // a method the headers above already reported is theirs to decide
            own.stream().filter(r -> !decided.contains(r.method())).forEach(results::add);
            own.forEach(r -> decided.add(r.method()));
        }
        if (results.isEmpty()) {
            return new Verdict(false, NO_RESULTS);
        }
        boolean dmarc = results.stream().anyMatch(r -> r.method().equals("dmarc") && r.result().equals("pass")
                && r.property("header.from") != null && r.property("header.from").equalsIgnoreCase(fromDomain));
        if (dmarc) {
            return new Verdict(true, "dmarc=pass");
        }
        boolean spf = results.stream().anyMatch(r -> r.method().equals("spf") && r.result().equals("pass")
                && Addresses.aligned(domainOf(r.property("smtp.mailfrom")), fromDomain));
        boolean dkim = results.stream().anyMatch(r -> r.method().equals("dkim") && r.result().equals("pass")
                && Addresses.aligned(r.property("header.d") != null ? r.property("header.d")
                : domainOf(r.property("header.i")), fromDomain));
        if (spf && dkim) {
            return new Verdict(true, "spf=pass, dkim=pass, aligned with " + fromDomain);
        }
        return new Verdict(false, "DMARC did not pass, and SPF and DKIM did not both pass aligned with " + fromDomain
                + " (" + summary(results) + ")");
    }

    /** The authserv-id a header starts with, or an empty string. */
    static String authservId(String header) {
        String[] id = clean(header).split(";")[0].strip().split(" ");
        return id.length == 0 ? "" : id[0];
    }

    /** The results of one header, or none when it is not from {@code trustedAuthservId}. */
    static List<Result> parse(String header, String trustedAuthservId) {
        if (!authservId(header).equalsIgnoreCase(trustedAuthservId)) {
            return List.of();
        }
        String[] parts = clean(header).split(";");
        List<Result> results = new ArrayList<>();
        for (int i = 1; i < parts.length; i++) {
            String[] tokens = parts[i].strip().split(" ");
            int eq = tokens[0].indexOf('=');
            if (eq <= 0) {
                continue; // "none", or a malformed entry
            }
            String method = tokens[0].substring(0, eq).replaceAll("/.*", "").toLowerCase(Locale.ROOT);
            String result = tokens[0].substring(eq + 1).toLowerCase(Locale.ROOT);
            Map<String, String> properties = new TreeMap<>();
            for (int t = 1; t < tokens.length; t++) {
                int at = tokens[t].indexOf('=');
                if (at > 0) {
                    properties.put(tokens[t].substring(0, at).toLowerCase(Locale.ROOT),
                            unquote(tokens[t].substring(at + 1)));
                }
            }
            results.add(new Result(method, result, properties));
        }
        return results;
    }

    /**
     * The header without its comments (nested ones included, RFC 5322) and with single spaces, in one pass: the
     * header is the sender's text, so nothing here may take more than linear time on it.
     */
    private static String clean(String header) {
        StringBuilder text = new StringBuilder(header.length());
        int depth = 0;
        boolean space = false;
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')' && depth > 0) {
                depth--;
                space = true;
            } else if (depth == 0) {
                if (Character.isWhitespace(c)) {
                    space = true;
                } else {
                    if (space && !text.isEmpty()) {
                        text.append(' ');
                    }
                    space = false;
                    text.append(c);
                }
            }
        }
        return text.toString();
    }

    private static String summary(List<Result> results) {
        List<String> seen = new ArrayList<>();
        for (String method : List.of("spf", "dkim", "dmarc")) {
            String result = results.stream().filter(r -> r.method().equals(method)).map(Result::result)
                    .reduce((a, b) -> a + "," + b).orElse("none");
            seen.add(method + "=" + result);
        }
        return String.join(", ", seen);
    }

    private static String domainOf(String value) {
        if (value == null) {
            return null;
        }
        String plain = Addresses.normalize(value);
        return plain.contains("@") ? Addresses.domain(plain) : plain;
    }

    private static String unquote(String value) {
        return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                ? value.substring(1, value.length() - 1) : value;
    }
}
