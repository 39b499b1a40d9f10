package io.orderflow.standalone;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class that starts a system of its own (in its JVM or in a child JVM) rather than using the one its JVM keeps
 * ({@link SharedStandalone}, the dashboard's): a start, a restart on the same data, a cluster, another run command.
 * Such classes run one after another in a test JVM of their own, after the other classes (standalone/pom.xml,
 * execution {@code own-systems}), so a system they start has the machine to itself: beside the other test JVMs, their
 * systems and browsers on two cores (load averages of 20 to 30), {@link CrashRestartEndToEndTest}'s restarted child
 * took about 160 s to be ready, and 22 s alone (docs/testing.md, "How the standalone classes run").
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(OwnSystem.TAG)
@interface OwnSystem {

    /** The JUnit tag the build selects these classes by. */
    String TAG = "own-system";
}
