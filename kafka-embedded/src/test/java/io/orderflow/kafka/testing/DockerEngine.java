package io.orderflow.kafka.testing;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * TEST ONLY. Questions to the Docker engine on its default socket, each answered within {@link #TIMEOUT}, so a test
 * can tell at once whether an engine answers and has the images it needs (where Testcontainers or {@code docker
 * compose} would try to pull a missing image for minutes before giving up where no registry answers).
 */
public final class DockerEngine {

    public static final Path DEFAULT_SOCKET = Path.of("/var/run/docker.sock");
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    private DockerEngine() {
    }

    /**
     * Why no engine can be used on the default socket, or {@code null} when one answers. Only meaningful where no
     * {@code DOCKER_HOST} points elsewhere.
     */
    public static String whyNoEngine() {
        if (!Files.exists(DEFAULT_SOCKET)) {
            return "no Docker engine is installed (no " + DEFAULT_SOCKET + ")";
        }
        int ping = status("/_ping");
        return switch (ping) {
            case 200 -> null;
            case 0 -> "the Docker engine does not answer on " + DEFAULT_SOCKET + " (connection refused)";
            case -1 -> "the Docker engine does not answer on " + DEFAULT_SOCKET + " within " + TIMEOUT.toSeconds() + " s";
            default -> "the Docker engine answers HTTP " + ping + " on " + DEFAULT_SOCKET;
        };
    }

    /** Whether the engine has the image {@code name} (e.g. {@code apache/kafka:4.4.0}) without pulling it. */
    public static boolean hasImage(String name) {
        return status("/images/" + name + "/json") == 200;
    }

    /**
     * The HTTP status of a GET of {@code path} from the engine's API on its default socket; 0 when it refuses, -1 when
     * it does not answer within {@link #TIMEOUT}.
     */
    static int status(String path) {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
             ExecutorService reader = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Integer> status = reader.submit(() -> {
                channel.connect(UnixDomainSocketAddress.of(DEFAULT_SOCKET));
                channel.write(ByteBuffer.wrap(("GET " + path + " HTTP/1.0\r\nHost: docker\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII)));
                ByteBuffer head = ByteBuffer.allocate(64); // the status line fits in the first bytes
                int read = 0;
                while (head.hasRemaining() && read >= 0) {
                    read = channel.read(head);
                }
                String[] parts = new String(head.array(), 0, head.position(), StandardCharsets.US_ASCII).split(" ", 3);
                return parts.length > 1 && parts[0].startsWith("HTTP/") ? Integer.parseInt(parts[1]) : 0;
            });
            try {
                return status.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                channel.close(); // releases the read, so the reader's close does not wait for it
                return -1;
            }
        } catch (IOException | ExecutionException | NumberFormatException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }
}
