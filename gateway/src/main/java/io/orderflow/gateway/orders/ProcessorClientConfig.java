package io.orderflow.gateway.orders;

import io.orderflow.gateway.GatewayProperties;
import io.orderflow.internal.InternalToken;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The gateway's {@link ProcessorClient}: over HTTP, unless whoever starts the gateway gives it one (the standalone
 * launcher gives it a client that reads one order from the processor in the same JVM).
 */
@Configuration(proxyBeanMethods = false)
class ProcessorClientConfig {

    @Bean
    @ConditionalOnMissingBean
    ProcessorClient processorClient(GatewayProperties settings, InternalToken token) {
        return new ProcessorClient(settings, token);
    }
}
