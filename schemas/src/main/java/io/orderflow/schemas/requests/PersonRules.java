package io.orderflow.schemas.requests;

import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * What a person's {@code email} must be beyond its schema (which bounds it at 254 characters): one {@code @} with
 * something before it, no white space, and a domain with a dot that is neither its first nor its last character. A
 * scan in one pass, not a pattern: the address is a stranger's text, and a pattern such as
 * {@code ^[^@\s]+@[^@\s]+\.[^@\s]+$} backtracks quadratically on a long run of dots.
 */
public final class PersonRules {

    public static final String NOT_AN_ADDRESS = "Not an email address, e.g. sam@example.com";

    private PersonRules() {
    }

    /** Whether {@code email} has the shape of an address. */
    public static boolean address(String email) {
        int at = email.indexOf('@');
        if (at <= 0 || at != email.lastIndexOf('@')) {
            return false;
        }
        for (int i = 0; i < email.length(); i++) {
            if (Character.isWhitespace(email.charAt(i))) {
                return false;
            }
        }
        String domain = email.substring(at + 1);
        return domain.length() >= 3 && domain.substring(1, domain.length() - 1).indexOf('.') >= 0;
    }

    /** Issues of a body that already satisfies the schema ({@code email} a string of at most 254 characters). */
    static List<RequestIssue> check(JsonNode body) {
        JsonNode email = body.get("email");
        return email == null || address(email.asString()) ? List.of()
                : List.of(new RequestIssue("/email", NOT_AN_ADDRESS));
    }
}
