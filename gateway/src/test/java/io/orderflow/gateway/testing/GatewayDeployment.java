package io.orderflow.gateway.testing;

import io.orderflow.kafka.testing.ManualClock;
import io.orderflow.gateway.GatewayApplication;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderType;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * TEST ONLY. A deployment of its own: a separate Kafka cluster (so its principals are its own), seeded flows, the
 * stand-ins for the processor and the dispatcher, and one or more gateway instances started as {@code main} starts
 * them, on a clock the test moves.
 */
public final class GatewayDeployment implements AutoCloseable {

    private final TestKafka.Cluster cluster = TestKafka.newCluster();
    public final String bootstrap = cluster.bootstrapServers();
    public final FakeProcessor processor;
    public final FakeQueryApi queries;
    public final FakeDispatcher dispatcher = new FakeDispatcher();
    public final ManualClock clock = new ManualClock();
    private final String appPassword;
    private final List<String> extraSettings;
    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    /** A deployment with {@code APP_PASSWORD} set to {@code appPassword}, or open when it is {@code null}. */
    public GatewayDeployment(String appPassword, String... extraSettings) {
        this.appPassword = appPassword;
        this.extraSettings = List.of(extraSettings);
        TestFlows.publish(bootstrap, TestFlows.flow("storefront_order", OrderType.STOREFRONT_ORDER, 1, 1_000, 3));
        processor = new FakeProcessor(bootstrap);
        queries = new FakeQueryApi(processor);
    }

    /** Starts one more gateway instance; answers a client for it. */
    public WebTestClient startInstance() {
        return startInstance(new String[0]);
    }

    /** Starts one more gateway instance with settings of its own on top of the deployment's; answers a client for it. */
    public WebTestClient startInstance(String... instanceSettings) {
        // A repeated command-line setting is read as the list of all its values: an instance's own processor URLs
        // replace the deployment's instead.
        boolean ownProcessorUrl = Arrays.stream(instanceSettings)
                .anyMatch(setting -> setting.startsWith("--orderflow.gateway.processor-url="));
        List<String> args = new ArrayList<>(List.of("--server.port=0",
                "--orderflow.kafka.bootstrap-servers=" + bootstrap,
                "--orderflow.gateway.dispatcher-url=" + dispatcher.url(),
                "--orderflow.gateway.reply-timeout=5s",
                "--orderflow.auth.app-password=" + (appPassword == null ? "" : appPassword)));
        if (!ownProcessorUrl) {
            args.add("--orderflow.gateway.processor-url=" + queries.url());
        }
        args.addAll(extraSettings);
        args.addAll(List.of(instanceSettings));
        var application = GatewayApplication.application();
        application.addInitializers(context -> {
            context.getBeanFactory().registerSingleton("testClock", clock);
            // its own Reactor Netty resources: closing one instance must not stop another's server. The server has
            // shut down gracefully (its requests answered) before they are disposed, so their event loops stop at
            // once instead of after Netty's quiet period of 2 s for tasks still arriving.
            if (context instanceof GenericApplicationContext generic) {
                generic.registerBean(ReactorResourceFactory.class, () -> {
                    ReactorResourceFactory resources = new ReactorResourceFactory();
                    resources.setUseGlobalResources(false);
                    resources.setShutdownQuietPeriod(Duration.ZERO);
                    return resources;
                });
            }
        });
        ConfigurableApplicationContext context = application.run(args.toArray(String[]::new));
        instances.add(context);
        return WebTestClient.bindToServer()
                .baseUrl("http://localhost:" + context.getEnvironment().getProperty("local.server.port"))
                .responseTimeout(Duration.ofSeconds(20)).build();
    }

    /** The base URL of the {@code index}th instance started, e.g. to open a WebSocket to it. */
    public java.net.URI url(int index) {
        return java.net.URI.create("http://localhost:"
                + instances.get(index).getEnvironment().getProperty("local.server.port"));
    }

    /** A bean of the {@code index}th instance started, for a test that checks what an instance holds. */
    public <T> T bean(int index, Class<T> type) {
        return instances.get(index).getBean(type);
    }

    /** The bean named {@code name} of the {@code index}th instance started, where several share its type. */
    public <T> T bean(int index, String name, Class<T> type) {
        return instances.get(index).getBean(name, type);
    }

    public Clock clock() {
        return clock;
    }

    /** A request's JSON answer. */
    public static JsonNode json(WebTestClient.ResponseSpec response) {
        return Json.MAPPER.readTree(response.expectBody().returnResult().getResponseBody());
    }

    /** POSTs {@code body} as JSON with {@code Authorization: Bearer <bearer>}. */
    public static WebTestClient.ResponseSpec post(WebTestClient http, String path, String bearer, String body) {
        return http.post().uri(path).contentType(MediaType.APPLICATION_JSON)
                .headers(h -> {
                    if (bearer != null) {
                        h.set(HttpHeaders.AUTHORIZATION, "Bearer " + bearer);
                    }
                }).bodyValue(body).exchange();
    }

    @Override
    public void close() {
        instances.forEach(ConfigurableApplicationContext::close);
        processor.close();
        queries.close();
        dispatcher.close();
        cluster.close();
    }
}
