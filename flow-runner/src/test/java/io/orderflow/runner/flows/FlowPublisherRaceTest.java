package io.orderflow.runner.flows;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.flows.FlowVersion;
import java.time.Clock;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Publishers racing on one flow, on a real broker: every publish gets its own version, none is lost. */
class FlowPublisherRaceTest {

    private static final int PUBLISHERS = 3;
    private static final int PUBLISHES_EACH = 3;

    @Test
    void racingPublishersNeverWriteTheSameVersionTwice() {
        KafkaSettings kafka = new KafkaSettings(TestKafka.bootstrapServers());
        FlowDefinition seeded = FlowFiles.builtIn("storefront_order");
        FlowDefinition flow = new FlowDefinition("race_" + UUID.randomUUID().toString().substring(0, 8),
                seeded.name(), seeded.description(), seeded.orderType(), seeded.nodes(), seeded.edges());
        CyclicBarrier start = new CyclicBarrier(PUBLISHERS);

        List<CompletableFuture<List<Integer>>> publishers = IntStream.range(0, PUBLISHERS)
                .mapToObj(i -> CompletableFuture.supplyAsync(() -> {
                    FlowPublisher publisher = new FlowPublisher(kafka, new FlowValidator(NodeCatalogue.standard()),
                            Clock.systemUTC());
                    await(start);
                    return IntStream.range(0, PUBLISHES_EACH)
                            .mapToObj(n -> publisher.publish(flow).publishedVersion()).toList();
                })).toList();
        List<Integer> answered = publishers.stream().flatMap(p -> p.join().stream()).sorted().toList();

        int total = PUBLISHERS * PUBLISHES_EACH;
        assertThat(answered).as("the versions the publishers were told").containsExactlyElementsOf(
                IntStream.rangeClosed(1, total).boxed().toList());
        FlowRecord stored = new FlowPublisher(kafka, new FlowValidator(NodeCatalogue.standard()), Clock.systemUTC())
                .readAll().get(flow.id());
        assertThat(stored.publishedVersion()).isEqualTo(total);
        assertThat(stored.versions()).extracting(FlowVersion::version)
                .containsExactlyElementsOf(IntStream.rangeClosed(1, total).boxed().toList());
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
