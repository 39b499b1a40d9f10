package io.orderflow.schemas.model;

import java.math.BigDecimal;

/**
 * The order summary inside outbound event data. Amounts are in {@code currency}; {@code fxRate} is units of
 * {@code currency} per USD and {@code baseTotal} the total in USD.
 */
public record OrderSummary(String id, OrderType type, String title, String customerId, String currency,
                           BigDecimal subtotal, BigDecimal tax, BigDecimal total, BigDecimal fxRate,
                           BigDecimal baseTotal) {
}
