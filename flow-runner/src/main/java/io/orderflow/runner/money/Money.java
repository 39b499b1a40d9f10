package io.orderflow.runner.money;

import io.orderflow.schemas.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * Exchange rates (units of currency per USD) and the USD price list, both seeded as data from
 * {@code money/rates.json} and {@code money/price-list.json}. Amounts are rounded to cents, half up.
 */
public record Money(Map<String, BigDecimal> rates, Map<String, BigDecimal> usdPrices) {

    public static final int SCALE = 2;

    public Money {
        rates = Map.copyOf(rates);
        usdPrices = Map.copyOf(usdPrices);
    }

    /** The seeded rates and price list from the classpath. */
    public static Money seeded() {
        return new Money(decimals(load("money/rates.json").path("rates")),
                decimals(load("money/price-list.json").path("prices")));
    }

    /** Units of {@code currency} per USD. */
    public BigDecimal rate(String currency) {
        BigDecimal rate = rates.get(currency == null ? "USD" : currency);
        if (rate == null) {
            throw new IllegalArgumentException("No exchange rate for currency " + currency);
        }
        return rate;
    }

    /** The list price of {@code sku} converted into {@code currency}, if the price list has it. */
    public Optional<BigDecimal> price(String sku, String currency) {
        return Optional.ofNullable(usdPrices.get(sku)).map(usd -> cents(usd.multiply(rate(currency))));
    }

    /** {@code amount} in {@code currency} converted to USD. */
    public BigDecimal toUsd(BigDecimal amount, String currency) {
        return amount.divide(rate(currency), SCALE, RoundingMode.HALF_UP);
    }

    public static BigDecimal cents(BigDecimal amount) {
        return amount.setScale(SCALE, RoundingMode.HALF_UP);
    }

    /**
     * {@code amount} with two decimals, e.g. {@code 385.20}, for summaries people read. Stored amounts read back with
     * the scale they were written with ({@code Json.MAPPER} reads decimals as {@code BigDecimal}), but an amount given
     * by a caller may have fewer decimals ({@code 19.5}), so summaries do not print them as they come.
     */
    public static String format(BigDecimal amount) {
        return cents(amount).toPlainString();
    }

    /** {@code amount} with two decimals and its currency, e.g. {@code 385.20 USD}. */
    public static String format(BigDecimal amount, String currency) {
        return format(amount) + " " + currency;
    }

    private static Map<String, BigDecimal> decimals(JsonNode object) {
        Map<String, BigDecimal> values = new LinkedHashMap<>();
        object.properties().forEach(e -> values.put(e.getKey(), e.getValue().decimalValue()));
        return values;
    }

    private static JsonNode load(String resource) {
        try (InputStream in = Money.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + resource);
            }
            return Json.MAPPER.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
