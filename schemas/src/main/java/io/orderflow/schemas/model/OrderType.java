package io.orderflow.schemas.model;

import com.fasterxml.jackson.annotation.JsonValue;

/** The five order types. */
public enum OrderType {
    PURCHASE_REQUEST("purchase_request"),
    B2B_ORDER("b2b_order"),
    REORDER("reorder"),
    SUBSCRIPTION("subscription"),
    STOREFRONT_ORDER("storefront_order");

    /** Every constant, read on each list row: {@code values()} would copy the array each time. */
    private static final OrderType[] ALL = values();

    private final String wire;

    OrderType(String wire) {
        this.wire = wire;
    }

    /** The spelling used on the wire and in the API. */
    @JsonValue
    public String wire() {
        return wire;
    }

    /** The constant spelled {@code wire}, or {@code null} when there is none. */
    public static OrderType fromWire(String wire) {
        for (OrderType value : ALL) {
            if (value.wire.equals(wire)) {
                return value;
            }
        }
        return null;
    }
}
