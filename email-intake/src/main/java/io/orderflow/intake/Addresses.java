package io.orderflow.intake;

import java.util.Locale;

/** Small helpers for mail addresses, which intake compares in lower case. */
final class Addresses {

    private Addresses() {
    }

    static String normalize(String address) {
        String plain = address.strip();
        if (plain.startsWith("<") && plain.endsWith(">")) {
            plain = plain.substring(1, plain.length() - 1);
        }
        return plain.toLowerCase(Locale.ROOT);
    }

    static String localPart(String address) {
        int at = address.lastIndexOf('@');
        return at < 0 ? address : address.substring(0, at);
    }

    static String domain(String address) {
        int at = address.lastIndexOf('@');
        return at < 0 ? "" : address.substring(at + 1);
    }

    /**
     * Relaxed alignment, approximately as DMARC has it: the same domain, or one a subdomain of the other, where the
     * parent has at least two labels (so {@code d=example} never aligns with everything under it). Without the public
     * suffix list a parent such as {@code co.uk} would still align; a DMARC pass from the relay is exact.
     */
    static boolean aligned(String domain, String fromDomain) {
        if (domain == null || domain.isEmpty() || fromDomain.isEmpty()) {
            return false;
        }
        String a = domain.toLowerCase(Locale.ROOT);
        return a.equals(fromDomain)
                || (a.endsWith("." + fromDomain) && fromDomain.contains("."))
                || (fromDomain.endsWith("." + a) && a.contains("."));
    }
}
