package io.orderflow.runner.replenishment;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.springframework.scheduling.support.CronExpression;

/**
 * Tells when a cron schedule fires by a clock that may jump ahead (clock control): checked often, it answers whether a
 * fire time fell between the check before and this one. A jump over several fire times fires once; a clock that went
 * back starts watching again from where it now is.
 */
final class CronWatch {

    private final CronExpression cron;
    private final ZoneId zone;
    private Instant last;

    /** @param expression a Spring cron expression (six fields, seconds first), read in {@code zone} */
    CronWatch(String expression, ZoneId zone) {
        this.cron = CronExpression.parse(expression);
        this.zone = zone;
    }

    /** Whether a fire time is in (the previous check, {@code now}]; the first check only starts the watch. */
    synchronized boolean due(Instant now) {
        Instant previous = last;
        last = now;
        if (previous == null || now.isBefore(previous)) {
            return false;
        }
        ZonedDateTime next = cron.next(previous.atZone(zone));
        return next != null && !next.toInstant().isAfter(now);
    }
}
