package io.orderflow.standalone;

import io.orderflow.kafka.testing.TestKafka;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * One standalone system for the end-to-end test classes of this JVM that do not restart it: started on first use and
 * kept for the next such class, closed (services, then broker) when a dashboard browser class takes its place ({@link
 * StandingSystem}) or the whole test run ends. Starting the system once saves its start-up time per class; each test
 * works on orders of its own, so the classes do not see each other. A class asks for it with
 * {@code @ExtendWith(SharedStandalone.class)} and a {@link StandaloneSystem} parameter.
 */
final class SharedStandalone implements ParameterResolver {

    /** The inbound signing key the shared system runs with ({@code WEBHOOK_SECRET}). */
    static final String WEBHOOK_SECRET = "e2e-inbound-secret";

    /**
     * The shared secret of the internal APIs the shared system runs with ({@code INTERNAL_TOKEN}): every read the
     * gateway makes of the processor's lists and the dispatcher's subscriptions carries it.
     */
    static final String INTERNAL_TOKEN = "e2e-internal-token";

    /** Where the shared system sends its email intake replies ({@code INTAKE_RELAY_PORT}); a test listens there. */
    static final int MAIL_RELAY_PORT = freePort();

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == StandaloneSystem.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return system(context);
    }

    /** The system, started if it is not the one standing in this JVM. */
    private static StandaloneSystem system(ExtensionContext context) {
        return StandingSystem.take(context, SharedStandalone.class, Running.class, SharedStandalone::start).system();
    }

    static WebTestClient client(StandaloneSystem system) {
        return WebTestClient.bindToServer().baseUrl("http://localhost:" + system.gatewayPort())
                .responseTimeout(Duration.ofSeconds(15)).build();
    }

    private static Running start() {
        // The services read settings from the environment or, as here, from system properties.
        System.setProperty("WEBHOOK_SECRET", WEBHOOK_SECRET);
        System.setProperty("INTERNAL_TOKEN", INTERNAL_TOKEN);
        System.setProperty("INTAKE_RELAY_HOST", "127.0.0.1");
        System.setProperty("INTAKE_RELAY_PORT", String.valueOf(MAIL_RELAY_PORT));
        return new Running(StandaloneSystem.start(new StandaloneSettings(0, TestKafka.uniqueStateDir("standalone-shared"),
                Optional.empty(), 0)));
    }

    private static int freePort() {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Closed when a dashboard browser class needs its system, or by JUnit when the root context ends. */
    private record Running(StandaloneSystem system) implements AutoCloseable {

        @Override
        public void close() {
            system.close();
            System.clearProperty("WEBHOOK_SECRET");
            System.clearProperty("INTERNAL_TOKEN");
            System.clearProperty("INTAKE_RELAY_HOST");
            System.clearProperty("INTAKE_RELAY_PORT");
        }
    }
}
