package io.orderflow.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.kafka.incident.IncidentPolicy;
import io.orderflow.kafka.incident.IncidentPolicy.Verdict;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The runner's verdicts on the failures of one task or timer ({@link RunTopology#policy}). */
class RunIncidentPolicyTest {

    private final Set<String> overran = new HashSet<>();
    private final IncidentPolicy policy = RunTopology.policy(overran);

    private static NodeBudget.Overrun overrun(String step) {
        return new NodeBudget.Overrun(step, "Node " + step + " overran its budget of 5 s");
    }

    @Test
    void work_that_throws_counts_as_an_attempt() {
        assertThat(policy.attempts()).isEqualTo(RunTopology.ATTEMPTS);
        assertThat(policy.judge().of(new IllegalStateException("boom"))).isEqualTo(Verdict.RETRY);
        assertThat(overran).isEmpty();
    }

    @Test
    void a_node_that_overran_is_tried_again_without_counting_and_fails_at_once_the_next_time() {
        assertThat(policy.judge().of(overrun("ship"))).isEqualTo(Verdict.RETRY_UNCOUNTED);
        assertThat(overran).containsExactly("ship");
        assertThat(policy.uncounted()).isEqualTo(RunTopology.OVERRUNS);
    }

    @Test
    void the_same_node_overrunning_again_or_no_free_worker_gives_up() {
        policy.judge().of(overrun("ship"));
        assertThat(policy.judge().of(overrun("ship"))).isEqualTo(Verdict.GIVE_UP);
        assertThat(policy.judge().of(overrun(null))).isEqualTo(Verdict.GIVE_UP);
    }
}
