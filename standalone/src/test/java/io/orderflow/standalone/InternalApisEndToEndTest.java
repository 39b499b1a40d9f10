package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The edges of the standalone system as the operating system sees them: only the gateway's HTTP port and the mail
 * intake's SMTP port listen beyond loopback; the processor's and the dispatcher's internal APIs answer 401 without
 * {@code INTERNAL_TOKEN} and 200 with it, and the gateway's reads through them carry it.
 */
@ExtendWith(SharedStandalone.class)
class InternalApisEndToEndTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** A listening TCP socket of this process, from {@code /proc/net/tcp} or {@code tcp6}. */
    record Listening(InetAddress address, int port) {
    }

    @Test
    void onlyTheGatewayAndTheMailIntakeListenBeyondLoopback(StandaloneSystem system) throws IOException {
        // the only system running in this JVM: the one a test JVM keeps (StandingSystem)
        List<Listening> listening = listeningSocketsOfThisProcess();

        assertThat(listening).extracting(Listening::port)
                .contains(system.gatewayPort(), system.intakePort(), system.processorPort(), system.dispatcherPort());
        List<Integer> edges = List.of(system.gatewayPort(), system.intakePort());
        assertThat(listening).filteredOn(socket -> !socket.address().isLoopbackAddress())
                .extracting(Listening::port)
                .allSatisfy(port -> assertThat(port).isIn(edges));
        List<Integer> internal = List.of(system.processorPort(), system.dispatcherPort());
        assertThat(listening).filteredOn(socket -> internal.contains(socket.port()))
                .allSatisfy(socket -> assertThat(socket.address().isLoopbackAddress()).as(socket.toString()).isTrue());
    }

    @Test
    void theInternalApisNeedTheTokenAndTheGatewaySendsIt(StandaloneSystem system) {
        String processor = "http://127.0.0.1:" + system.processorPort() + "/internal/orders";
        String dispatcher = "http://127.0.0.1:" + system.dispatcherPort() + "/internal/subscriptions";
        for (String url : List.of(processor, dispatcher)) {
            assertThat(get(url, null).statusCode()).as(url).isEqualTo(401);
            assertThat(get(url, "not-the-token").statusCode()).as(url).isEqualTo(401);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(get(url, SharedStandalone.INTERNAL_TOKEN).statusCode()).as(url).isEqualTo(200));
        }
        // a matrix parameter does not step around the check
        assertThat(get("http://127.0.0.1:" + system.dispatcherPort() + "/internal;x=1/subscriptions", null)
                .statusCode()).isEqualTo(401);

        String gateway = "http://localhost:" + system.gatewayPort();
        for (String route : List.of("/api/v1/orders", "/api/v1/webhook-subscriptions")) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(get(gateway + route, null).statusCode()).as(route).isEqualTo(200));
        }
    }

    private static HttpResponse<String> get(String url, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15));
        if (token != null) {
            request.header("X-Internal-Token", token);
        }
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The sockets in state LISTEN ({@code 0A}) whose inode is one of this process's file descriptors. An address is
     * written as 32-bit words in host byte order (little-endian here), each word's bytes reversed.
     */
    static List<Listening> listeningSocketsOfThisProcess() throws IOException {
        Set<String> inodes;
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            inodes = fds.map(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString();
                } catch (IOException e) {
                    return ""; // closed since it was listed
                }
            }).filter(link -> link.startsWith("socket:[")).map(link -> link.substring(8, link.length() - 1))
                    .collect(Collectors.toSet());
        }
        List<Listening> listening = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines = Files.readAllLines(Path.of(table));
            for (String line : lines.subList(1, lines.size())) {
                String[] fields = line.trim().split("\\s+");
                if (fields[3].equals("0A") && inodes.contains(fields[9])) {
                    String[] local = fields[1].split(":");
                    listening.add(new Listening(address(local[0]), Integer.parseInt(local[1], 16)));
                }
            }
        }
        return listening;
    }

    private static InetAddress address(String hex) throws IOException {
        byte[] words = HexFormat.of().parseHex(hex);
        byte[] bytes = new byte[words.length];
        for (int word = 0; word < words.length; word += 4) {
            for (int i = 0; i < 4; i++) {
                bytes[word + i] = words[word + 3 - i];
            }
        }
        return InetAddress.getByAddress(bytes);
    }
}
