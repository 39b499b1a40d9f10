package io.orderflow.runner;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.runner.flows.FlowFiles;
import io.orderflow.runner.flows.FlowPublisher;
import io.orderflow.runner.flows.FlowValidator;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.schemas.flows.FlowRecord;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * The flow-runner service. {@code --publish=<flow file>} publishes a flow file as its next version on the
 * {@code flows} topic (bootstrap servers from {@code --orderflow.kafka.bootstrap-servers=} or
 * {@code KAFKA_BOOTSTRAP_SERVERS}, default {@code localhost:9092}; client properties from {@code KAFKA_PROPERTIES_FILE}
 * and {@code KAFKA_*}, see {@link KafkaSettings}) and exits instead of starting the service.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class FlowRunnerApplication {

    public static final String CONFIG_NAME = "flow-runner";

    public static void main(String[] args) {
        String publish = option(args, "--publish=");
        if (publish != null) {
            System.exit(publish(publish, args));
        }
        application().run(args);
    }

    /** The application with its config name set, for the standalone launcher too. */
    public static SpringApplication application() {
        SpringApplication app = new SpringApplication(FlowRunnerApplication.class);
        app.setDefaultProperties(Map.of("spring.config.name", CONFIG_NAME));
        return app;
    }

    /** Publishes {@code file}; answers the process exit code. */
    static int publish(String file, String[] args) {
        String bootstrap = option(args, "--orderflow.kafka.bootstrap-servers=");
        try {
            KafkaSettings kafka = KafkaSettings.fromEnvironment(System.getenv());
            if (bootstrap != null) {
                kafka = kafka.withBootstrapServers(bootstrap);
            }
            FlowPublisher publisher = new FlowPublisher(kafka, new FlowValidator(NodeCatalogue.standard()),
                    Clock.systemUTC());
            FlowRecord record = publisher.publish(FlowFiles.read(Path.of(file)));
            System.out.println("Published flow " + record.id() + " version " + record.publishedVersion());
            return 0;
        } catch (RuntimeException e) {
            System.err.println(e.getMessage());
            return 1;
        }
    }

    private static String option(String[] args, String prefix) {
        return Arrays.stream(args).filter(a -> a.startsWith(prefix)).map(a -> a.substring(prefix.length()))
                .findFirst().orElse(null);
    }
}
