package io.orderflow.standalone;

import io.orderflow.dispatcher.WebhookDispatcherApplication;
import io.orderflow.gateway.GatewayApplication;
import io.orderflow.gateway.intake.SmtpListener;
import io.orderflow.kafka.EmbeddedKafkaBroker;
import io.orderflow.kafka.TopicProvisioner;
import io.orderflow.processor.OrderProcessorApplication;
import io.orderflow.runner.FlowRunnerApplication;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * The whole service in one JVM: the in-process broker (unless an external cluster is given) and the four services,
 * each in its own Spring application context with its own settings file. Closing stops the services in reverse
 * order of their start (Kafka Streams leaves its group) and the broker last.
 */
public final class StandaloneSystem implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StandaloneSystem.class);
    private static final int PARTITIONS = 3;
    /**
     * Spring Security is on this JVM's classpath for the gateway; the other services' internal APIs would get Spring
     * Boot's default login on it, which they do not have when run alone. Authentication is the gateway's.
     */
    private static final String NO_SECURITY = "--spring.autoconfigure.exclude="
            + "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration,"
            + "org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration,"
            + "org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration";

    private final EmbeddedKafkaBroker broker;
    private final String bootstrapServers;
    private final List<ConfigurableApplicationContext> services = new ArrayList<>();
    private int gatewayPort;
    private int intakePort = -1;

    private StandaloneSystem(EmbeddedKafkaBroker broker, String bootstrapServers) {
        this.broker = broker;
        this.bootstrapServers = bootstrapServers;
    }

    public static StandaloneSystem start(StandaloneSettings settings) {
        long started = System.nanoTime();
        EmbeddedKafkaBroker broker = settings.bootstrapServers().isPresent()
                ? null
                : EmbeddedKafkaBroker.start(settings.dataDir(), settings.kafkaPort());
        String bootstrap = settings.bootstrapServers().orElseGet(() -> Objects.requireNonNull(broker).bootstrapServers());
        StandaloneSystem system = new StandaloneSystem(broker, bootstrap);
        try {
            TopicProvisioner.createMissing(bootstrap, PARTITIONS, (short) 1);
            String[] common = {
                    "--orderflow.kafka.bootstrap-servers=" + bootstrap,
                    "--orderflow.data-dir=" + settings.dataDir().toAbsolutePath(),
            };
            int processorPort = system.startService("order-processor", OrderProcessorApplication.class, common,
                    "--server.port=0", "--orderflow.streams.advertised-host=127.0.0.1", NO_SECURITY);
            system.startService("flow-runner", FlowRunnerApplication.class, common, NO_SECURITY);
            int dispatcherPort = system.startService("webhook-dispatcher", WebhookDispatcherApplication.class, common,
                    "--server.port=0", "--orderflow.dispatcher.topic-partitions=" + PARTITIONS, NO_SECURITY);
            system.gatewayPort = system.startService("gateway", GatewayApplication.class, common,
                    "--server.port=" + settings.port(),
                    "--orderflow.gateway.processor-url=http://127.0.0.1:" + processorPort,
                    "--orderflow.gateway.dispatcher-url=http://127.0.0.1:" + dispatcherPort,
                    "--orderflow.intake.smtp-port=" + settings.intakeSmtpPort());
            system.intakePort = system.services.getLast().getBean(SmtpListener.class).port().orElse(-1);
        } catch (RuntimeException e) {
            system.close();
            throw e;
        }
        log.info("Order workflow service started in {} ms: http://localhost:{}/health (Kafka at {}, mail intake on "
                        + "SMTP port {})", (System.nanoTime() - started) / 1_000_000, system.gatewayPort, bootstrap,
                system.intakePort);
        return system;
    }

    /** The Kafka cluster the services use: the in-process broker's, or the one given. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The port the gateway listens on. */
    public int gatewayPort() {
        return gatewayPort;
    }

    /** The port the email intake's SMTP listener accepts mail on; -1 when it is off. */
    public int intakePort() {
        return intakePort;
    }

    @Override
    public void close() {
        for (ConfigurableApplicationContext service : services.reversed()) {
            try {
                service.close();
            } catch (RuntimeException e) {
                log.warn("Service {} did not stop cleanly", service.getId(), e);
            }
        }
        services.clear();
        if (broker != null) {
            broker.close();
        }
    }

    /** Starts one service; answers its web server port, or -1 when it serves no HTTP. */
    private int startService(String name, Class<?> application, String[] common, String... args) {
        String[] all = new String[common.length + args.length];
        System.arraycopy(common, 0, all, 0, common.length);
        System.arraycopy(args, 0, all, common.length, args.length);
        ConfigurableApplicationContext context;
        // Lines logged on this thread while the context starts (Spring's own among them) name the service.
        try (MDC.MDCCloseable ignored = MDC.putCloseable(ServiceTagConverter.MDC_KEY, name)) {
            context = new SpringApplicationBuilder(application)
                    .properties("spring.config.name=" + name, "spring.application.name=" + name)
                    .initializers(StandaloneSystem::ownReactorNettyResources)
                    .registerShutdownHook(false)
                    .run(all);
        }
        services.add(context);
        return context.getEnvironment().getProperty("local.server.port", Integer.class, -1);
    }

    /**
     * Gives the service event loops of its own for its web server. Spring Boot's default uses the JVM-wide Reactor
     * Netty resources and disposes them when the context closes, which would stop the web servers of every other
     * service context in the JVM: closing one system (a test's) would silently kill another one still running.
     */
    private static void ownReactorNettyResources(ConfigurableApplicationContext context) {
        if (context instanceof GenericApplicationContext generic) {
            generic.registerBean(ReactorResourceFactory.class, () -> {
                ReactorResourceFactory resources = new ReactorResourceFactory();
                resources.setUseGlobalResources(false);
                return resources;
            });
        }
    }
}
