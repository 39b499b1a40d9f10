package io.orderflow.kafka.incident;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.orderflow.kafka.incident.IncidentPolicy.Failure;
import io.orderflow.kafka.incident.IncidentPolicy.Verdict;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Given the failures of a record's handling, which tries are made, which count, and when the order is set aside: a
 * receiver that fails as scripted, then succeeds.
 */
class IncidentPolicyTest {

    /** Tried again and counted. */
    static final class Flaky extends RuntimeException {
        Flaky(String message) {
            super(message);
        }
    }

    /** Tried again without counting. */
    static final class Overran extends RuntimeException {
        Overran(String message) {
            super(message);
        }
    }

    /** Final at once. */
    static final class TooLarge extends RuntimeException {
        TooLarge(String message) {
            super(message);
        }
    }

    private static final IncidentPolicy POLICY = new IncidentPolicy(3, 2, failure -> switch (failure) {
        case Overran overran -> Verdict.RETRY_UNCOUNTED;
        case TooLarge tooLarge -> Verdict.GIVE_UP;
        default -> Verdict.RETRY;
    });

    /** Throws its scripted failures one per try, then answers "done"; counts the tries. */
    static final class Receiver implements Supplier<String> {

        private final Deque<RuntimeException> failures;
        int tries;

        Receiver(RuntimeException... failures) {
            this.failures = new ArrayDeque<>(List.of(failures));
        }

        @Override
        public String get() {
            tries++;
            RuntimeException next = failures.poll();
            if (next != null) {
                throw next;
            }
            return "done";
        }
    }

    private final List<Failure> seen = new ArrayList<>();
    private final List<String> settled = new ArrayList<>();
    private final List<RuntimeException> setAside = new ArrayList<>();

    private void handle(IncidentPolicy policy, Receiver receiver) {
        policy.handle(receiver, seen::add, settled::add, setAside::add);
    }

    @Test
    void work_that_fails_fewer_times_than_the_attempts_is_settled() {
        Flaky first = new Flaky("1");
        Flaky second = new Flaky("2");
        Receiver receiver = new Receiver(first, second);

        handle(POLICY, receiver);

        assertThat(receiver.tries).isEqualTo(3);
        assertThat(seen).containsExactly(new Failure(first, 1, Verdict.RETRY), new Failure(second, 2, Verdict.RETRY));
        assertThat(settled).containsExactly("done");
        assertThat(setAside).isEmpty();
    }

    @Test
    void work_that_fails_every_attempt_is_set_aside_with_the_last_failure() {
        Flaky last = new Flaky("3");
        Receiver receiver = new Receiver(new Flaky("1"), new Flaky("2"), last, new Flaky("never tried"));

        handle(POLICY, receiver);

        assertThat(receiver.tries).isEqualTo(3);
        assertThat(seen).extracting(Failure::attempt, Failure::verdict).containsExactly(
                tuple(1, Verdict.RETRY),
                tuple(2, Verdict.RETRY),
                tuple(3, Verdict.GIVE_UP));
        assertThat(settled).isEmpty();
        assertThat(setAside).containsExactly(last);
    }

    @Test
    void a_failure_that_gives_up_at_once_is_not_tried_again() {
        TooLarge tooLarge = new TooLarge("state too large");
        Receiver receiver = new Receiver(new Flaky("1"), tooLarge);

        handle(POLICY, receiver);

        assertThat(receiver.tries).isEqualTo(2);
        assertThat(seen).last().isEqualTo(new Failure(tooLarge, 1, Verdict.GIVE_UP));
        assertThat(setAside).containsExactly(tooLarge);
    }

    @Test
    void uncounted_tries_leave_the_attempts_as_they_were() {
        Receiver receiver = new Receiver(new Overran("a"), new Flaky("1"), new Overran("b"), new Flaky("2"));

        handle(POLICY, receiver);

        assertThat(receiver.tries).isEqualTo(5);
        assertThat(seen).extracting(Failure::attempt, Failure::verdict).containsExactly(
                tuple(0, Verdict.RETRY_UNCOUNTED),
                tuple(1, Verdict.RETRY),
                tuple(1, Verdict.RETRY_UNCOUNTED),
                tuple(2, Verdict.RETRY));
        assertThat(settled).containsExactly("done");
    }

    @Test
    void uncounted_tries_past_their_cap_give_up() {
        Overran third = new Overran("c");
        Receiver receiver = new Receiver(new Overran("a"), new Overran("b"), third);

        handle(POLICY, receiver);

        assertThat(receiver.tries).isEqualTo(3);
        assertThat(seen).last().isEqualTo(new Failure(third, 0, Verdict.GIVE_UP));
        assertThat(setAside).containsExactly(third);
    }

    @Test
    void a_judge_may_keep_what_it_saw_of_one_handling() {
        // the runner's kind: the same node overrunning twice gives up
        Set<String> overran = new HashSet<>();
        IncidentPolicy policy = new IncidentPolicy(3, 5,
                failure -> overran.add(failure.getMessage()) ? Verdict.RETRY_UNCOUNTED : Verdict.GIVE_UP);
        Overran again = new Overran("a");
        Receiver receiver = new Receiver(new Overran("a"), new Overran("b"), again);

        handle(policy, receiver);

        assertThat(receiver.tries).isEqualTo(3);
        assertThat(setAside).containsExactly(again);
    }

    @Test
    void settling_that_throws_sets_the_order_aside_without_another_try() {
        Receiver receiver = new Receiver();
        IllegalStateException writing = new IllegalStateException("store closed");

        POLICY.handle(receiver, seen::add, done -> {
            throw writing;
        }, setAside::add);

        assertThat(receiver.tries).isEqualTo(1);
        assertThat(seen).isEmpty();
        assertThat(setAside).containsExactly(writing);
    }

    @Test
    void an_attempt_throws_the_failure_it_gave_up_on() {
        Flaky last = new Flaky("3");
        Receiver receiver = new Receiver(new Flaky("1"), new Flaky("2"), last);

        assertThatThrownBy(() -> POLICY.attempt(receiver, seen::add)).isSameAs(last);
        assertThat(new IncidentPolicy(1, 0, failure -> Verdict.RETRY).attempt(new Receiver(), seen::add))
                .isEqualTo("done");
    }

    @Test
    void a_policy_has_at_least_one_attempt() {
        assertThatThrownBy(() -> new IncidentPolicy(0, 0, failure -> Verdict.RETRY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new IncidentPolicy(1, -1, failure -> Verdict.RETRY))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
