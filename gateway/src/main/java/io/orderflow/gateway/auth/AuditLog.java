package io.orderflow.gateway.auth;

import io.orderflow.gateway.auth.Principals.AuditEntry;
import io.orderflow.schemas.commands.Caller;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * Writes the audit log ({@code GET /api/v1/team/audit}): who changed the team, and who moved the service clock. Each
 * entry goes to the {@code principals} topic once the change it records has been saved; its time is the gateway's
 * real time.
 */
@Component
public class AuditLog {

    private final PrincipalDirectory directory;
    private final Clock clock;
    private final AtomicLong sequence = new AtomicLong();

    public AuditLog(PrincipalDirectory directory, Clock clock) {
        this.directory = directory;
        this.clock = clock;
    }

    /** Records a change made by {@code caller}; completes once the entry is in this instance's view of the log. */
    public Mono<Void> record(Caller caller, String action, String targetId, String target, String summary) {
        return Mono.defer(() -> {
            long now = clock.millis();
            // time first, then this instance's sequence: newest first even for changes within one millisecond
            String id = String.format("%013d_%012d_%s", now, sequence.incrementAndGet(), Secrets.random(3));
            return directory.record(new AuditEntry(id, now, actor(caller), action, targetId, target, summary));
        });
    }

    /** How the log names a caller: an email, {@code token:<name>}, {@code password} or {@code open}. */
    public static String actor(Caller caller) {
        return caller.identity() != null ? caller.identity() : caller.kind();
    }
}
