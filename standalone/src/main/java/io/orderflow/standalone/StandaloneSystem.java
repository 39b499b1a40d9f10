package io.orderflow.standalone;

import io.orderflow.dispatcher.WebhookDispatcherApplication;
import io.orderflow.gateway.GatewayApplication;
import io.orderflow.gateway.GatewayProperties;
import io.orderflow.intake.SmtpListener;
import io.orderflow.gateway.system.SystemScrape;
import io.orderflow.gateway.orders.ProcessorClient;
import io.orderflow.internal.InternalToken;
import io.orderflow.kafka.embedded.EmbeddedKafkaBroker;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.TopicProvisioner;
import io.orderflow.processor.OrderProcessorApplication;
import io.orderflow.processor.query.OrderQueryRouter;
import io.orderflow.runner.FlowRunnerApplication;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusScrapeEndpoint;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.http.client.ReactorResourceFactory;
import reactor.netty.resources.LoopResources;

/**
 * The whole service in one JVM: the in-process broker (unless an external cluster is given) and the four services,
 * each in its own Spring application context with its own settings file. Everything but the gateway runs at background
 * priority ({@link #atBackgroundPriority}). Closing stops the services in reverse order of their start (Kafka Streams
 * leaves its group) and the broker last.
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
            + "org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration,"
            + "org.springframework.boot.security.autoconfigure.actuate.web.reactive."
            + "ReactiveManagementWebSecurityAutoConfiguration";
    /**
     * The internal APIs of the processor and the dispatcher listen on loopback only: the gateway, in this JVM, is their
     * one caller. Only the gateway's HTTP port and the mail intake's SMTP port face the network (the in-process
     * broker listens on loopback too).
     */
    private static final String LOOPBACK_ONLY = "--server.address=127.0.0.1";

    private final EmbeddedKafkaBroker broker;
    private final String bootstrapServers;
    /** The arguments every service gets: the Kafka cluster and the data directory. */
    private final String[] common;
    private final List<ConfigurableApplicationContext> services = new ArrayList<>();
    private ConfigurableApplicationContext processor;
    private int processorPort;
    private int dispatcherPort;
    private int gatewayPort;
    private int intakePort = -1;

    private StandaloneSystem(EmbeddedKafkaBroker broker, String bootstrapServers, String[] common) {
        this.broker = broker;
        this.bootstrapServers = bootstrapServers;
        this.common = common;
    }

    public static StandaloneSystem start(StandaloneSettings settings) {
        long started = System.nanoTime();
        JsonLogging.initializeIfAsked();
        StandaloneSystem system = atBackgroundPriority(() -> startBackEnd(settings));
        try {
            system.gatewayPort = system.startService("gateway", GatewayApplication.class, system.common,
                    both(system.wholeSystemObservability(), system.inProcessOrderReads()),
                    "--server.port=" + settings.port(),
                    "--orderflow.readiness.include=readinessState,kafka,services",
                    "--orderflow.gateway.processor-url=http://127.0.0.1:" + system.processorPort,
                    "--orderflow.gateway.dispatcher-url=http://127.0.0.1:" + system.dispatcherPort,
                    "--orderflow.intake.smtp-port=" + settings.intakeSmtpPort(),
                    "--orderflow.intake.trusted-relays=" + settings.intakeTrustedRelays());
            system.intakePort = system.services.getLast().getBean(SmtpListener.class).port().orElse(-1);
        } catch (RuntimeException e) {
            system.close();
            throw e;
        }
        log.info("Order workflow service started in {} ms: http://localhost:{}/health (Kafka at {}, mail intake on "
                        + "SMTP port {})", (System.nanoTime() - started) / 1_000_000, system.gatewayPort,
                system.bootstrapServers, system.intakePort);
        return system;
    }

    /** The in-process broker (unless an external cluster is given), the topics and the services behind the gateway. */
    private static StandaloneSystem startBackEnd(StandaloneSettings settings) {
        EmbeddedKafkaBroker broker = settings.bootstrapServers().isPresent()
                ? null
                : EmbeddedKafkaBroker.start(settings.dataDir(), settings.kafkaPort());
        String bootstrap = settings.bootstrapServers().orElseGet(() -> Objects.requireNonNull(broker).bootstrapServers());
        KafkaSettings given = settings.kafka();
        KafkaSettings kafka = broker == null
                ? given.withBootstrapServers(bootstrap)
                : new KafkaSettings(bootstrap, given.propertiesFile(), given.properties(), (short) -1, 0);
        StandaloneSystem system = new StandaloneSystem(broker, bootstrap, new String[] {
                "--orderflow.kafka.bootstrap-servers=" + bootstrap,
                "--orderflow.kafka.properties-file=" + kafka.propertiesFile(),
                "--orderflow.kafka.topic-replication=" + kafka.topicReplication(),
                "--orderflow.kafka.topic-min-isr=" + kafka.topicMinIsr(),
                "--orderflow.data-dir=" + settings.dataDir().toAbsolutePath(),
                // with LOG_FORMAT=json, each JSON line names its own service (the contexts share one logging system)
                "--logging.structured.json.customizer=" + ServiceJsonMember.class.getName(),
                // one instance of each Streams app: no other instance to keep a standby copy on
                "--orderflow.kafka.standby-replicas=0",
        });
        try {
            TopicProvisioner.createMissing(kafka, PARTITIONS);
            system.processorPort = system.startService("order-processor", OrderProcessorApplication.class,
                    system.common, NOTHING_MORE, "--server.port=0", LOOPBACK_ONLY,
                    "--orderflow.streams.advertised-host=127.0.0.1", NO_SECURITY);
            system.processor = system.services.getLast();
            // the runner's HTTP serves only its health and metrics, which the gateway's port serves here
            system.startService("flow-runner", FlowRunnerApplication.class, system.common, NOTHING_MORE,
                    "--spring.main.web-application-type=none", NO_SECURITY);
            system.dispatcherPort = system.startService("webhook-dispatcher", WebhookDispatcherApplication.class,
                    system.common, NOTHING_MORE, "--server.port=0", LOOPBACK_ONLY,
                    "--orderflow.dispatcher.topic-partitions=" + PARTITIONS,
                    "--orderflow.dispatcher.topic-replication=" + kafka.topicReplication(), NO_SECURITY);
        } catch (RuntimeException e) {
            system.close();
            throw e;
        }
        return system;
    }

    /**
     * Answers what {@code start} answers, run on a thread of minimum priority. A thread takes its creator's priority,
     * so the threads of what it starts run at it too: the broker's, the Kafka Streams threads and their clients, and
     * (at the operating system's level, where a thread inherits its creator's nice value) RocksDB's. On Linux, with
     * {@code -XX:ThreadPriorityPolicy=1} (the run command's JVM), that is nice 4 against the gateway's 0: when both
     * cores are busy, the event loop that answers a person's request is given a core before the background work.
     * Without the option, Java priorities change nothing.
     */
    private static <T> T atBackgroundPriority(Supplier<T> start) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                result.complete(start.get());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, "standalone-back-end-start");
        thread.setPriority(Thread.MIN_PRIORITY);
        thread.start();
        try {
            return result.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    /** The Kafka cluster the services use: the in-process broker's, or the one given. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The port the gateway listens on. */
    public int gatewayPort() {
        return gatewayPort;
    }

    /** The port of the order-processor's internal query API (on loopback). */
    public int processorPort() {
        return processorPort;
    }

    /** The port of the webhook-dispatcher's internal subscription API (on loopback). */
    public int dispatcherPort() {
        return dispatcherPort;
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

    private static final ApplicationContextInitializer<ConfigurableApplicationContext> NOTHING_MORE = context -> {
    };

    /**
     * What makes the gateway's actuator the whole system's: {@code /actuator/prometheus} scrapes the four services'
     * registries as one ({@link SystemMetrics}; each meter carries its service's {@code service} tag), and readiness
     * includes the {@code services} check, the readiness of each service behind the gateway ({@link SystemReadiness}).
     * Spring Boot's own scrape endpoint backs off when a context has one already. The gateway's
     * {@code GET /api/v1/system} reads the same scrape ({@link SystemScrape}).
     */
    private ApplicationContextInitializer<ConfigurableApplicationContext> wholeSystemObservability() {
        Map<String, ApplicationContext> backEnd = new LinkedHashMap<>();
        List<Supplier<PrometheusRegistry>> registries = new ArrayList<>();
        for (ConfigurableApplicationContext service : services) {
            backEnd.put(service.getEnvironment().getProperty("spring.application.name", service.getId()), service);
            registries.add(() -> service.isActive() ? service.getBean(PrometheusRegistry.class) : null);
        }
        return context -> {
            if (!(context instanceof GenericApplicationContext generic)) {
                return;
            }
            List<Supplier<PrometheusRegistry>> all = new ArrayList<>(registries);
            all.addFirst(() -> context.isActive() ? context.getBean(PrometheusRegistry.class) : null);
            PrometheusRegistry system = SystemMetrics.registry(all);
            generic.registerBean("prometheusEndpoint", PrometheusScrapeEndpoint.class,
                    () -> new PrometheusScrapeEndpoint(system, new Properties()));
            generic.registerBean("systemScrape", SystemScrape.class, () -> system::scrape);
            generic.registerBean("servicesHealthContributor", CompositeHealthContributor.class,
                    () -> SystemReadiness.of(backEnd));
        };
    }

    /**
     * Gives the gateway a {@link ProcessorClient} whose reads (one order, a page of the list, the counts, the approvals
     * inbox) go straight to the processor's query routing in this JVM ({@link OrderQueryRouter}, which still forwards
     * to the owner of a key and gathers from other instances over HTTP), instead of crossing HTTP into the processor
     * and back.
     */
    private ApplicationContextInitializer<ConfigurableApplicationContext> inProcessOrderReads() {
        OrderQueryRouter router = processor.getBean(OrderQueryRouter.class);
        return context -> {
            if (context instanceof GenericApplicationContext generic) {
                generic.registerBean(ProcessorClient.class, () -> new ProcessorClient(
                        generic.getBean(GatewayProperties.class), generic.getBean(InternalToken.class),
                        new InProcessReads(router)));
            }
        };
    }

    private static ApplicationContextInitializer<ConfigurableApplicationContext> both(
            ApplicationContextInitializer<ConfigurableApplicationContext> first,
            ApplicationContextInitializer<ConfigurableApplicationContext> second) {
        return context -> {
            first.initialize(context);
            second.initialize(context);
        };
    }

    /** Starts one service; answers its web server port, or -1 when it serves no HTTP. */
    private int startService(String name, Class<?> application, String[] common,
                             ApplicationContextInitializer<ConfigurableApplicationContext> more, String... args) {
        String[] all = new String[common.length + args.length];
        System.arraycopy(common, 0, all, 0, common.length);
        System.arraycopy(args, 0, all, common.length, args.length);
        ConfigurableApplicationContext context;
        // Lines logged on this thread while the context starts (Spring's own among them) name the service.
        try (MDC.MDCCloseable ignored = MDC.putCloseable(ServiceTagConverter.MDC_KEY, name)) {
            context = new SpringApplicationBuilder(application)
                    .properties("spring.config.name=" + name, "spring.application.name=" + name)
                    .initializers(ownReactorNettyResources(name), more)
                    .registerShutdownHook(false)
                    .run(all);
        }
        services.add(context);
        return context.getEnvironment().getProperty("local.server.port", Integer.class, -1);
    }

    /**
     * Gives the service event loops of its own for its web server, named after it ({@code gateway-http-epoll-1},
     * {@code processor-http-epoll-1}, ...). Spring Boot's default uses the JVM-wide Reactor Netty resources and
     * disposes them when the context closes, which would stop the web servers of every other service context in the
     * JVM: closing one system (a test's) would silently kill another one still running.
     */
    private static ApplicationContextInitializer<ConfigurableApplicationContext> ownReactorNettyResources(String name) {
        String loops = name.substring(name.lastIndexOf('-') + 1) + "-http";
        return context -> {
            if (context instanceof GenericApplicationContext generic) {
                generic.registerBean(ReactorResourceFactory.class, () -> {
                    ReactorResourceFactory resources = new ReactorResourceFactory();
                    resources.setUseGlobalResources(false);
                    resources.setLoopResourcesSupplier(() -> LoopResources.create(loops));
                    return resources;
                });
            }
        };
    }
}
