package io.orderflow.gateway;

import java.time.Clock;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import io.orderflow.dashboard.DashboardPages;
import io.orderflow.intake.IntakeConfiguration;
import io.orderflow.internal.InternalToken;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.TopicCheck;
import io.orderflow.kafka.clock.ClockSettings;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/** The HTTP surface of the order workflow service. Its settings live in {@code gateway.yaml}. */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableConfigurationProperties({KafkaSettings.class, InternalToken.class, ClockSettings.class})
@Import({TopicCheck.class, IntakeConfiguration.class, DashboardPages.class})
public class GatewayApplication {

    public static void main(String[] args) {
        application().run(args);
    }

    /** The application with its config name set, for {@code main} and for the standalone launcher. */
    public static SpringApplication application() {
        SpringApplication app = new SpringApplication(GatewayApplication.class);
        app.setDefaultProperties(Map.of("spring.config.name", "gateway"));
        return app;
    }

    /**
     * The server clock: signature timestamps, session expiry, the guess window and the audit log are checked against
     * it. It is real time under clock control too: the service clock ({@code clock.ClockControl}) adds its offset to it.
     */
    @Bean
    @ConditionalOnMissingBean
    Clock clock() {
        return Clock.systemUTC();
    }
}
