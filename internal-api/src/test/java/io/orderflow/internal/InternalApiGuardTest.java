package io.orderflow.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/** A service with an internal API, started alone: what it answers and where it listens, with and without a token. */
class InternalApiGuardTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** The smallest service with an internal route, guarded as the processor and the dispatcher are. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(InternalApiGuard.class)
    static class InternalService {

        @Bean
        RouterFunction<ServerResponse> routes() {
            return RouterFunctions.route().GET("/internal/orders", request -> ServerResponse.ok().bodyValue("[]"))
                    .GET("/actuator/health/readiness", request -> ServerResponse.ok().bodyValue("UP"))
                    .build();
        }
    }

    private static ConfigurableApplicationContext start(String... args) {
        SpringApplication app = new SpringApplication(InternalService.class);
        app.setDefaultProperties(java.util.Map.of("spring.main.banner-mode", "off"));
        String[] all = new String[args.length + 1];
        all[0] = "--server.port=0";
        System.arraycopy(args, 0, all, 1, args.length);
        return app.run(all);
    }

    private static int port(ConfigurableApplicationContext context) {
        return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    private static int get(String url, String token) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url));
        if (token != null) {
            request.header(InternalToken.HEADER, token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @Test
    void withATokenEveryRequestNeedsIt() throws Exception {
        try (ConfigurableApplicationContext service = start("--orderflow.internal.token=s3cret-token")) {
            String base = "http://127.0.0.1:" + port(service);
            assertThat(get(base + "/internal/orders", null)).isEqualTo(401);
            assertThat(get(base + "/internal/orders", "s3cret-tokeN")).isEqualTo(401);
            assertThat(get(base + "/internal/orders", "s3cret-token-and-more")).isEqualTo(401);
            assertThat(get(base + "/internal;a=b/orders", null)).isEqualTo(401);
            assertThat(get(base + "/elsewhere", null)).isEqualTo(401);
            assertThat(get(base + "/internal/orders", "s3cret-token")).isEqualTo(200);
            // a probe reads readiness without the secret; nothing else comes with it
            assertThat(get(base + "/actuator/health/readiness", null)).isEqualTo(200);
            assertThat(get(base + "/actuator/health/readiness;x=/internal/orders", null)).isEqualTo(401);
            assertThat(get(base + "/actuator/health/readiness/../../internal/orders", null)).isEqualTo(401);
        }
    }

    @Test
    void withoutATokenItListensOnLoopbackOnly() throws Exception {
        Optional<InetAddress> external = nonLoopbackAddress();
        try (ConfigurableApplicationContext service = start()) {
            assertThat(get("http://127.0.0.1:" + port(service) + "/internal/orders", null)).isEqualTo(200);
            assumeThat(external).as("a non-loopback IPv4 address on this machine").isPresent();
            assertThatThrownBy(() -> new Socket(external.get(), port(service)).close())
                    .isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void withoutATokenItRefusesToListenBeyondLoopback() {
        assertThatThrownBy(() -> start("--server.address=0.0.0.0").close())
                .rootCause().hasMessageContaining("INTERNAL_TOKEN is unset, so the internal API may not listen on "
                        + "0.0.0.0");
    }

    private static Optional<InetAddress> nonLoopbackAddress() throws SocketException {
        return NetworkInterface.networkInterfaces().filter(networkInterface -> {
            try {
                return networkInterface.isUp() && !networkInterface.isLoopback();
            } catch (SocketException e) {
                return false;
            }
        }).flatMap(NetworkInterface::inetAddresses).filter(address -> address instanceof Inet4Address).findFirst();
    }
}
