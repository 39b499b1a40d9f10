package io.orderflow.kafka.clock;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Whether a service follows the controlled clock ({@code orderflow.clock.*}).
 *
 * @param control {@code CLOCK_CONTROL}: the service tells time by the {@code clock} topic ({@link ServiceClock}), and
 *                the gateway answers {@code /api/v1/clock}; off (the default), real time and 404
 * @param force   {@code CLOCK_CONTROL_FORCE}: the gateway starts with clock control even where people sign in
 *                ({@code APP_PASSWORD} set or people registered), which it otherwise refuses
 */
@ConfigurationProperties("orderflow.clock")
public record ClockSettings(@DefaultValue("false") boolean control, @DefaultValue("false") boolean force) {

    /** Real time, no clock routes. */
    public static final ClockSettings OFF = new ClockSettings(false, false);
}
