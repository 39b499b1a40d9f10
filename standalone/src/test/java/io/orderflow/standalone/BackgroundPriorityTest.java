package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.orderflow.standalone.bench.ProcStat;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Everything but the gateway runs at background priority: the broker's threads, the Kafka Streams threads of the
 * order-processor and the flow-runner, and the RocksDB threads they start. With the run command's
 * {@code -XX:ThreadPriorityPolicy=1} (this module's tests run with it too), Linux gives them nice 4 and the
 * gateway's event loops nice 0, so that a person's request gets a core first when both are busy (docs/performance.md,
 * "JVM settings").
 */
@ExtendWith(SharedStandalone.class)
class BackgroundPriorityTest {

    private static final Predicate<String> BROKER = name -> name.startsWith("data-plane-kafka-request-handler");
    private static final Predicate<String> STREAMS = name -> name.contains("StreamThread")
            && (name.startsWith("orderflow-order-processor") || name.startsWith("orderflow-flow-runner"));
    private static final Predicate<String> GATEWAY_LOOPS = name -> name.startsWith("gateway-http-");

    @BeforeEach
    void aRequestHasReachedTheGateway(StandaloneSystem system) {
        // The event loops start with the first connection.
        SharedStandalone.client(system).get().uri("/health").exchange().expectStatus().isOk();
    }

    @Test
    void theBrokerAndTheStreamThreadsHaveTheLowestJavaPriorityAndTheGatewaysEventLoopsTheNormalOne() {
        List<Thread> threads = List.copyOf(Thread.getAllStackTraces().keySet());

        assertThat(threads).filteredOn(thread -> BROKER.test(thread.getName())).isNotEmpty()
                .allSatisfy(thread -> assertThat(thread.getPriority()).as(thread.getName())
                        .isEqualTo(Thread.MIN_PRIORITY));
        assertThat(threads).filteredOn(thread -> STREAMS.test(thread.getName())).hasSizeGreaterThanOrEqualTo(2)
                .allSatisfy(thread -> assertThat(thread.getPriority()).as(thread.getName())
                        .isEqualTo(Thread.MIN_PRIORITY));
        assertThat(threads).filteredOn(thread -> GATEWAY_LOOPS.test(thread.getName())).isNotEmpty()
                .allSatisfy(thread -> assertThat(thread.getPriority()).as(thread.getName())
                        .isEqualTo(Thread.NORM_PRIORITY));
    }

    @Test
    void onLinuxTheBackgroundRunsAtNiceFourAndTheGatewaysEventLoopsAtZero() throws IOException {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux's /proc");
        assumeTrue(ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-XX:ThreadPriorityPolicy=1"),
                "the run command's -XX:ThreadPriorityPolicy=1");
        List<NativeThread> threads = nativeThreads();

        // The kernel keeps 15 characters of a thread's name.
        assertThat(threads).filteredOn(thread -> thread.name().equals("data-plane-kafk")).isNotEmpty()
                .allSatisfy(thread -> assertThat(thread.nice()).as(thread.name()).isEqualTo(4));
        assertThat(threads).filteredOn(thread -> thread.name().startsWith("orderflow-"))
                .hasSizeGreaterThanOrEqualTo(2)
                .allSatisfy(thread -> assertThat(thread.nice()).as(thread.name()).isEqualTo(4));
        assertThat(threads).filteredOn(thread -> thread.name().startsWith("rocksdb:")).isNotEmpty()
                .allSatisfy(thread -> assertThat(thread.nice()).as(thread.name()).isEqualTo(4));
        assertThat(threads).filteredOn(thread -> thread.name().startsWith("gateway-http-")).isNotEmpty()
                .allSatisfy(thread -> assertThat(thread.nice()).as(thread.name()).isEqualTo(0));
    }

    /** A thread of this process as the kernel sees it: its name and nice value. */
    private record NativeThread(String name, int nice) {
    }

    private static List<NativeThread> nativeThreads() throws IOException {
        List<NativeThread> threads = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    threads.add(new NativeThread(Files.readString(task.resolve("comm")).strip(),
                            ProcStat.nice(task.resolve("stat"))));
                } catch (IOException ended) {
                    // the thread ended while the list was read
                }
            }
        }
        return threads;
    }
}
