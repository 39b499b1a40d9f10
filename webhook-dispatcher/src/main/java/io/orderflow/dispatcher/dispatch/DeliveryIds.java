package io.orderflow.dispatcher.dispatch;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Delivery ids: derived from the order, the sending step and the subscription, so they repeat on a replay. */
public final class DeliveryIds {

    private DeliveryIds() {
    }

    public static String of(String orderId, String step, String subscriptionId) {
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            // NUL separators: no id or step contains one, so different triples never hash the same input.
            byte[] hash = sha256.digest((orderId + '\0' + step + '\0' + subscriptionId)
                    .getBytes(StandardCharsets.UTF_8));
            return "dlv_" + HexFormat.of().formatHex(hash, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}
