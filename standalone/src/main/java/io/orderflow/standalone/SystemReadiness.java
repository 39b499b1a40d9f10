package io.orderflow.standalone;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.actuate.endpoint.CompositeHealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ApplicationContext;

/**
 * The {@code services} part of the standalone gateway's readiness: each service behind the gateway is ready when its
 * own readiness group is UP (the order processor's and the runner's Kafka Streams applications RUNNING, a broker
 * answering). The gateway's readiness is the whole system's, which is what a load balancer in front of the one process
 * needs.
 */
final class SystemReadiness {

    private SystemReadiness() {
    }

    /** One check per service, by name; each reads that service's readiness group when asked. */
    static CompositeHealthContributor of(Map<String, ApplicationContext> services) {
        Map<String, HealthIndicator> checks = new LinkedHashMap<>();
        services.forEach((name, context) -> checks.put(name, () -> readiness(context)));
        return CompositeHealthContributor.fromMap(checks);
    }

    private static Health readiness(ApplicationContext service) {
        HealthDescriptor readiness;
        try {
            readiness = service.getBean(HealthEndpoint.class).healthForPath("readiness");
        } catch (IllegalStateException closed) {
            return Health.down().withDetail("state", "stopped").build();
        }
        Health.Builder health = Health.status(readiness.getStatus());
        if (readiness instanceof CompositeHealthDescriptor composite && composite.getComponents() != null) {
            composite.getComponents().forEach((part, descriptor) -> health.withDetail(part,
                    descriptor.getStatus().getCode()));
        }
        return health.build();
    }
}
