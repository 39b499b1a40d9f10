package io.orderflow.gateway.clock;

import io.orderflow.gateway.api.ApiError;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.auth.AuditLog;
import io.orderflow.gateway.auth.AuthProperties;
import io.orderflow.gateway.auth.PrincipalDirectory;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.clock.ClockChange;
import io.orderflow.kafka.clock.ClockFollower;
import io.orderflow.kafka.clock.ClockSettings;
import io.orderflow.kafka.clock.ServiceClock;
import io.orderflow.schemas.clock.ClockSetting;
import io.orderflow.schemas.commands.Caller;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The gateway's side of clock control ({@code CLOCK_CONTROL=true}): it refuses to start where people sign in (unless
 * {@code CLOCK_CONTROL_FORCE=true}), follows the {@code clock} topic like every service under clock control, and makes
 * the changes the clock routes ask for: each is written to the topic (which the processor and the runner follow),
 * read back, and recorded in the audit log. With clock control off it does nothing, and the routes answer 404.
 */
@Component
public class ClockControl implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ClockControl.class);
    /** How long a change may take to be written and read back before it answers 503. */
    private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(10);
    private static final String FOR_TEST_SYSTEMS = " A controlled clock moves every deadline, escalation and timer of "
            + "the orders it runs; it is meant for test systems. To run it here anyway, set CLOCK_CONTROL_FORCE=true "
            + "as well.";
    static final String REFUSED_PASSWORD = "CLOCK_CONTROL=true is refused: APP_PASSWORD is set, so people sign in to "
            + "this deployment." + FOR_TEST_SYSTEMS;
    static final String REFUSED_PEOPLE = "CLOCK_CONTROL=true is refused: people are registered on this deployment."
            + FOR_TEST_SYSTEMS;
    static final String REFUSED_NOW = "Clock control is refused now that people are registered on this deployment; "
            + "restart the gateway with CLOCK_CONTROL_FORCE=true to allow it";

    private final ClockSettings settings;
    private final PrincipalDirectory directory;
    private final AuditLog audit;
    private final ClockFollower follower;
    private final Object changing = new Object();
    private volatile boolean running;

    /**
     * @param clock the gateway's real clock, which the service clock adds its offset to
     * @throws IllegalStateException when clock control is on, not forced, and {@code APP_PASSWORD} is set
     */
    public ClockControl(ClockSettings settings, AuthProperties auth, KafkaSettings kafka, PrincipalDirectory directory,
                        AuditLog audit, Clock clock) {
        if (settings.control() && !settings.force() && auth.sharedPassword().isPresent()) {
            throw new IllegalStateException(REFUSED_PASSWORD);
        }
        this.settings = settings;
        this.directory = directory;
        this.audit = audit;
        this.follower = settings.control() ? new ClockFollower(kafka, "gateway", clock) : null;
    }

    /** Whether the clock routes answer: {@code CLOCK_CONTROL=true}. */
    public boolean on() {
        return follower != null;
    }

    /** The service clock as it is now; 404 with clock control off. */
    public ServiceClockView now() {
        return view(followed());
    }

    /** Moves the clock forward by {@code step}. */
    public Mono<ServiceClockView> advance(Caller caller, Duration step) {
        return change(caller, (offset, realNow) -> ClockChange.advance(offset, realNow, step), "clock.advanced",
                now -> "Advanced the service clock by " + step + " to " + now);
    }

    /** Moves the clock to {@code at}; it runs on from there. */
    public Mono<ServiceClockView> pin(Caller caller, Instant at) {
        return change(caller, (offset, realNow) -> ClockChange.pin(offset, realNow, at), "clock.pinned",
                now -> "Set the service clock to " + now);
    }

    /** Puts the clock back to real time. */
    public Mono<ServiceClockView> reset(Caller caller) {
        return change(caller, (offset, realNow) -> ClockChange.reset(realNow), "clock.reset",
                now -> "Reset the service clock to real time, " + now);
    }

    private interface Step {
        ClockChange.Outcome apply(long offsetMillis, long realNowMillis);
    }

    /**
     * Works out the change on the clock as this instance reads it, writes it and waits to read it back, one change at
     * a time per instance; then records it in the audit log. A refused change is a 400 that changes nothing.
     */
    private Mono<ServiceClockView> change(Caller caller, Step step, String action,
                                          java.util.function.Function<Instant, String> summary) {
        ClockFollower clock = followed();
        if (!settings.force() && directory.hasPeople()) {
            return Mono.error(ApiException.forbidden(REFUSED_NOW));
        }
        return Mono.fromCallable(() -> {
            synchronized (changing) {
                ServiceClock service = clock.clock();
                long realNow = service.real().millis();
                ClockChange.Moved moved = switch (step.apply(service.offsetMillis(), realNow)) {
                    case ClockChange.Moved m -> m;
                    case ClockChange.Refused refused -> throw new ApiException(HttpStatus.BAD_REQUEST,
                            new ApiError("Invalid request body", List.of(new ApiError.Issue(refused.field(),
                                    refused.message()))), Map.of());
                };
                publish(clock, new ClockSetting(moved.offsetMillis(), realNow, AuditLog.actor(caller)));
                log.warn("Clock control: {} moved the service clock to {} ({} from real time)", AuditLog.actor(caller),
                        moved.now(), Duration.ofMillis(moved.offsetMillis()));
                return moved;
            }
        }).subscribeOn(Schedulers.boundedElastic())
                .flatMap(moved -> audit.record(caller, action, ClockSetting.KEY, "service clock",
                        summary.apply(moved.now())).thenReturn(view(clock)));
    }

    private static void publish(ClockFollower clock, ClockSetting setting) {
        try {
            clock.publish(setting).get(WRITE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("The clock change was interrupted; read the clock and retry");
        } catch (ExecutionException | TimeoutException e) {
            throw ApiException.unavailable("The clock change could not be confirmed within "
                    + WRITE_TIMEOUT.toSeconds() + " s; read the clock and retry");
        }
    }

    private ClockFollower followed() {
        if (follower == null) {
            throw ApiException.notFound("Not found");
        }
        return follower;
    }

    private static ServiceClockView view(ClockFollower clock) {
        ServiceClock service = clock.clock();
        long offset = service.offsetMillis();
        Instant now = Instant.ofEpochMilli(service.real().millis() + offset);
        ClockSetting setting = clock.setting().orElse(null);
        return new ServiceClockView(now.toString(), now.toEpochMilli(), Duration.ofMillis(offset).toString(), offset,
                setting == null ? null : setting.changedAt(), setting == null ? null : setting.changedBy());
    }

    // ---- lifecycle: after the principals are read (phase 0), before the web server takes requests -----------------

    /**
     * With clock control on: refuses to start where people are registered (unless forced), then reads the clock topic.
     *
     * @throws IllegalStateException when people are registered and clock control is not forced
     */
    @Override
    public void start() {
        if (follower != null) {
            if (!settings.force()) {
                directory.loaded().block();
                if (directory.hasPeople()) {
                    throw new IllegalStateException(REFUSED_PEOPLE);
                }
            }
            follower.start();
        }
        running = true;
    }

    @Override
    public void stop() {
        if (follower != null && follower.isRunning()) {
            follower.stop();
        }
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return 1;
    }
}
