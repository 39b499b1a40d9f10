package io.orderflow.gateway.orders;

import io.orderflow.schemas.signing.Sha256;
import io.orderflow.gateway.RandomIds;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Order ids ({@code ord_<id>}). With an {@code Idempotency-Key} the id is derived from the key, so racing repeats
 * land on the same Kafka key, partition and store entry, where the processor decides them one after the other.
 */
public final class OrderIds {

    /** What an order id may look like; anything else cannot name an order. */
    public static final Pattern SHAPE = Pattern.compile("ord_[A-Za-z0-9_-]{1,64}");

    private static final int ID_HEX_CHARS = 24;

    private OrderIds() {
    }

    public static String fromIdempotencyKey(String key) {
        return "ord_" + Sha256.hex(key).substring(0, ID_HEX_CHARS);
    }

    public static String random() {
        return "ord_" + RandomIds.hex(ID_HEX_CHARS / 2);
    }

    public static boolean isOrderId(String id) {
        return id != null && SHAPE.matcher(id).matches();
    }

}
