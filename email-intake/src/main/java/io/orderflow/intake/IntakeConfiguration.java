package io.orderflow.intake;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;

/**
 * The mail intake in a service's context: its listener, reader, customer directory and acknowledgements, under
 * {@code orderflow.intake.*}. The service provides an {@link IntakeOrders}, a {@link java.time.Clock} and a meter
 * registry.
 */
@Configuration(proxyBeanMethods = false)
@ComponentScan
@EnableConfigurationProperties(IntakeProperties.class)
public class IntakeConfiguration {
}
