package io.orderflow.runner.replenishment;

import io.orderflow.kafka.SocketBuffers;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.runner.flows.FlowPublisher;
import io.orderflow.schemas.topics.Topics;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Fires the replenishment run daily at 06:00 (cron {@code 0 6 * * *}; Spring's six-field form below) by the runner's
 * clock. The schedule is checked every second against that clock rather than left to a timer set on real time, so
 * under clock control a change that passes 06:00 starts the run at the next check.
 */
@Component
public class ReplenishmentJob {

    private static final Logger log = LoggerFactory.getLogger(ReplenishmentJob.class);

    private final Replenishment replenishment;
    private final FlowPublisher flows;
    private final KafkaSettings kafka;
    private final Clock clock;
    private final CronWatch schedule;

    public ReplenishmentJob(Replenishment replenishment, FlowPublisher flows, KafkaSettings kafka, Clock clock,
                            @Value("${orderflow.runner.replenishment-cron:0 0 6 * * *}") String cron,
                            @Value("${orderflow.runner.replenishment-zone:UTC}") String zone) {
        this.replenishment = replenishment;
        this.flows = flows;
        this.kafka = kafka;
        this.clock = clock;
        this.schedule = new CronWatch(cron, ZoneId.of(zone));
    }

    /** Starts the run when the clock has passed a fire time of the schedule since the last check. */
    @Scheduled(fixedDelay = 1_000)
    public void check() {
        if (schedule.due(clock.instant())) {
            run();
        }
    }

    public void run() {
        var envelope = replenishment.plan(LocalDate.now(clock), flows.readAll().get("reorder"), clock.millis());
        if (envelope.isEmpty()) {
            log.info("Replenishment: nothing below its reorder point");
            return;
        }
        Properties props = new Properties();
        props.putAll(kafka.clientProperties());
        props.putAll(SocketBuffers.client());
        try (var producer = new KafkaProducer<>(props, Topics.ORDER_COMMANDS.keySerde().serializer(),
                Topics.ORDER_COMMANDS.valueSerde().serializer())) {
            var command = envelope.get().command();
            producer.send(new ProducerRecord<>(Topics.ORDER_COMMANDS.name(), command.orderId(), envelope.get())).get();
            log.info("Replenishment: started {}", command.orderId());
        } catch (Exception e) {
            log.error("Replenishment run failed", e);
        }
    }
}
