package io.orderflow.dispatcher;

import io.orderflow.internal.InternalApiGuard;
import java.time.Clock;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.TopicCheck;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Fans {@code order-events} out to webhook subscriptions, signs and POSTs each delivery, retries through delay topics
 * and keeps delivery records. Serves the internal subscription API the gateway proxies,
 * guarded by {@link InternalApiGuard}. Settings live in
 * {@code webhook-dispatcher.yaml}.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableConfigurationProperties(KafkaSettings.class)
@Import({InternalApiGuard.class, TopicCheck.class, KafkaClients.class})
public class WebhookDispatcherApplication {

    public static void main(String[] args) {
        application().run(args);
    }

    /** The application with its config name set, for {@code main} and for the standalone launcher. */
    public static SpringApplication application() {
        SpringApplication app = new SpringApplication(WebhookDispatcherApplication.class);
        app.setDefaultProperties(Map.of("spring.config.name", "webhook-dispatcher"));
        return app;
    }

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
