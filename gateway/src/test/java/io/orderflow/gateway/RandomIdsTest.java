package io.orderflow.gateway;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RandomIdsTest {

    @Test
    void aUuidIsARandomVersionFourUuidAsTheJdkMakesIt() {
        UUID id = RandomIds.uuid();

        assertThat(id.version()).isEqualTo(4);
        assertThat(id.variant()).isEqualTo(2);
        assertThat(UUID.fromString(id.toString())).isEqualTo(id);
    }

    @Test
    void idsDoNotRepeatWithinAThreadOrAcrossThreads() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            ids.add(RandomIds.uuid().toString());
            ids.add(RandomIds.hex(12));
        }
        Set<String> elsewhere = CompletableFuture.supplyAsync(() -> {
            Set<String> made = new HashSet<>();
            for (int i = 0; i < 10_000; i++) {
                made.add(RandomIds.uuid().toString());
            }
            return made;
        }).join();

        assertThat(ids).hasSize(20_000);
        assertThat(elsewhere).hasSize(10_000).doesNotContainAnyElementsOf(ids);
    }

    @Test
    void hexHasTwoLowerCaseDigitsPerByte() {
        assertThat(RandomIds.hex(12)).hasSize(24).matches("[0-9a-f]{24}");
    }
}
