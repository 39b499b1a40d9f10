package io.orderflow.gateway.auth;

import io.orderflow.gateway.api.ApiException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * The cursor of the team's audit log: the id of the last entry of a page, base64url without padding. Opaque to
 * callers; anything this list did not write is refused (400) before it is used.
 */
final class AuditCursor {

    private static final Pattern ID = Pattern.compile("\\d{13}_\\d{12}_[A-Za-z0-9_-]{1,16}");
    private static final Pattern BASE64URL = Pattern.compile("[A-Za-z0-9_-]{1,80}");

    private AuditCursor() {
    }

    static String encode(String entryId) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(entryId.getBytes(StandardCharsets.US_ASCII));
    }

    /** The entry id the cursor names, or {@code null} for no cursor (the first page). */
    static String decode(String cursor) {
        if (cursor == null) {
            return null;
        }
        if (BASE64URL.matcher(cursor).matches()) {
            try {
                String id = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.US_ASCII);
                if (ID.matcher(id).matches()) {
                    return id;
                }
            } catch (IllegalArgumentException e) {
                // refused below
            }
        }
        throw ApiException.badRequest("The cursor is not valid for this list; start again from the first page");
    }
}
