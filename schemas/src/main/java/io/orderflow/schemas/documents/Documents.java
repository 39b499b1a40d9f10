package io.orderflow.schemas.documents;

import io.orderflow.schemas.signing.Sha256;

/**
 * An order's {@code documentText} is stored once, keyed by its content hash, before the run starts: in the order
 * agent's {@code documents} store when the order is started, and in the runner's when the start task arrives. The
 * order object holds the reference ({@link #REF_FIELD}) instead of the text, so the text is not copied into every
 * state, snapshot and report of the order; reading the order shows the text as given.
 */
public final class Documents {

    /** The order object's field with the text, as the start request gives it and a read shows it. */
    public static final String TEXT_FIELD = "documentText";
    /** The order object's field with the stored text's reference. */
    public static final String REF_FIELD = "documentRef";

    private Documents() {
    }

    /** The reference of {@code text}: {@code sha256:<hex of its UTF-8 bytes>}. */
    public static String ref(String text) {
        return "sha256:" + Sha256.hex(text);
    }
}
