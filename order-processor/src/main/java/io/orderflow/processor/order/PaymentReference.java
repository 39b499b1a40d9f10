package io.orderflow.processor.order;

import java.math.BigDecimal;
import java.util.Currency;
import io.orderflow.schemas.commands.RejectionKind;
import tools.jackson.databind.JsonNode;

/**
 * The payment reference a person enters when delivering a payment event ({@code payment.received}) from the order
 * page: {@code { reference, amount?, currency? }} in the event's payload. A payload is the sender's own shape (the
 * contract requires none), so only a payload that carries a {@code reference} is checked: the reference is a non-blank
 * string of at most {@value #MAX_REFERENCE} characters, the amount a positive number in the order's currency (no more
 * decimals than the currency has), and a currency, when given, the order's.
 */
public final class PaymentReference {

    public static final int MAX_REFERENCE = 64;

    private PaymentReference() {
    }

    /**
     * What is wrong with the payload, answered as an invalid body is: {@code { error, issues: [{ path, message }] }}
     * with the path a JSON Pointer into the request ({@code /payload/amount}); {@code null} when nothing is.
     */
    public static Rejection refusal(JsonNode payload, String orderCurrency) {
        String[] problem = problem(payload, orderCurrency);
        return problem == null ? null : new Rejection(RejectionKind.INVALID_ARGUMENT, problem[1], problem[0]);
    }

    /** The JSON Pointer and the message of the first problem, or {@code null}. */
    private static String[] problem(JsonNode payload, String orderCurrency) {
        if (payload == null || !payload.has("reference")) {
            return null;
        }
        String currency = orderCurrency != null ? orderCurrency : "USD";
        JsonNode reference = payload.get("reference");
        if (!reference.isString() || reference.asString().isBlank()
                || reference.asString().length() > MAX_REFERENCE) {
            return new String[] {"/payload/reference",
                    "payload.reference must be a non-blank string of at most " + MAX_REFERENCE + " characters"};
        }
        JsonNode given = payload.get("currency");
        if (given != null && !given.isNull() && !(given.isString() && given.asString().equals(currency))) {
            return new String[] {"/payload/currency", "payload.currency must be the order's currency, " + currency};
        }
        JsonNode amount = payload.get("amount");
        if (amount != null && !amount.isNull()) {
            int decimals = decimals(currency);
            if (!amount.isNumber() || amount.decimalValue().signum() <= 0
                    || amount.decimalValue().stripTrailingZeros().scale() > decimals) {
                return new String[] {"/payload/amount", "payload.amount must be a positive number in " + currency
                        + " with at most " + decimals + " decimals"};
            }
        }
        return null;
    }

    /**
     * The timeline's words for a payload with a reference, "reference TX-1, 120.00 USD" (the amount in the order's
     * currency unless the payload names one); {@code null} without a reference.
     */
    static String describe(JsonNode payload, String orderCurrency) {
        if (payload == null || !payload.hasNonNull("reference")) {
            return null;
        }
        String words = "reference " + payload.get("reference").asString();
        JsonNode amount = payload.get("amount");
        if (amount != null && amount.isNumber()) {
            String currency = payload.hasNonNull("currency") ? payload.get("currency").asString()
                    : orderCurrency != null ? orderCurrency : "USD";
            BigDecimal value = amount.decimalValue();
            int decimals = decimals(currency);
            if (value.scale() < decimals) {
                value = value.setScale(decimals);
            }
            words += ", " + value.toPlainString() + " " + currency;
        }
        return words;
    }

    private static int decimals(String currency) {
        try {
            int digits = Currency.getInstance(currency).getDefaultFractionDigits();
            return digits < 0 ? 2 : digits;
        } catch (IllegalArgumentException e) {
            return 2;
        }
    }
}
