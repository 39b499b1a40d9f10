package io.orderflow.dispatcher.dispatch;

import io.orderflow.schemas.signing.Sha256;

/** Delivery ids: derived from the order, the sending step and the subscription, so they repeat on a replay. */
public final class DeliveryIds {

    private DeliveryIds() {
    }

    public static String of(String orderId, String step, String subscriptionId) {
        // NUL separators: no id or step contains one, so different triples never hash the same input.
        return "dlv_" + Sha256.hex(orderId + '\0' + step + '\0' + subscriptionId).substring(0, 32);
    }
}
