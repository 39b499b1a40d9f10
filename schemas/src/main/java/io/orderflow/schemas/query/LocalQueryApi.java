package io.orderflow.schemas.query;

import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The order processor's internal query API ({@link OrderQueries}) answered inside this JVM, without HTTP: where the
 * gateway and a processor instance share a process (the standalone system), a read of one order goes straight to the
 * processor's query routing and store instead of crossing HTTP twice. The processor registers itself under the URLs
 * it serves the API at; a caller whose processor URL names a registered instance asks it directly, and anything it
 * does not answer (an empty answer) goes over HTTP as before. Forwarding to the instance that owns an order stays
 * the processor's, over HTTP.
 */
public interface LocalQueryApi {

    /** An answer as the HTTP API would give it: status and JSON body, in UTF-8. */
    record Answer(int status, byte[] body) {
    }

    /**
     * The answer to a GET of {@code relative} (path and query of the internal API), or empty when this instance does
     * not answer that path locally.
     */
    Optional<CompletionStage<Answer>> get(URI relative);

    /** Registers {@code api} for {@code baseUrls} ({@code http://host:port}); closing the answer unregisters it. */
    static AutoCloseable register(LocalQueryApi api, String... baseUrls) {
        for (String url : baseUrls) {
            Registry.APIS.put(Registry.normalized(url), api);
        }
        return () -> {
            for (String url : baseUrls) {
                Registry.APIS.remove(Registry.normalized(url), api);
            }
        };
    }

    /** The instance in this JVM that serves the API at {@code baseUrl}, if any. */
    static Optional<LocalQueryApi> at(String baseUrl) {
        return baseUrl == null ? Optional.empty() : Optional.ofNullable(Registry.APIS.get(Registry.normalized(baseUrl)));
    }

    /** Holds the registrations of this JVM. */
    final class Registry {
        private static final Map<String, LocalQueryApi> APIS = new ConcurrentHashMap<>();

        private Registry() {
        }

        static String normalized(String url) {
            String trimmed = url.strip();
            return trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
        }
    }
}
