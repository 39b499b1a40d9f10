package io.orderflow.dispatcher.deliveries;

import com.fasterxml.jackson.annotation.JsonValue;

public enum DeliveryStatus {
    PENDING, DELIVERED, FAILED;

    @JsonValue
    public String json() {
        return name().toLowerCase();
    }
}
