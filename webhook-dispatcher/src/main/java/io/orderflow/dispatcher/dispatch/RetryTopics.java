package io.orderflow.dispatcher.dispatch;

import io.orderflow.dispatcher.DispatcherProperties;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.header.Headers;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.RetryListener;
import org.springframework.kafka.retrytopic.DeadLetterPublishingRecovererFactory;
import org.springframework.kafka.retrytopic.RetryTopicConfiguration;
import org.springframework.kafka.retrytopic.RetryTopicConfigurationBuilder;
import org.springframework.kafka.retrytopic.RetryTopicConfigurationSupport;
import org.springframework.kafka.retrytopic.RetryTopicSchedulerWrapper;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The non-blocking retries of deliveries (spring-kafka retry topics): a failed attempt moves the record to
 * {@code webhook-delivery-attempts-retry-<n>}, consumed again once its delay has passed (10 s, 20 s, 40 s, 80 s,
 * 160 s by default); after the last retry, or when an event allows fewer retries, it lands on
 * {@code webhook-delivery-attempts-dlt}, whose handler records the delivery {@code failed}. Each retry topic holds
 * records of one delay only, so a record never waits behind one that is due later.
 *
 * <p>Each retry and dead-letter topic has one consumer, not the listeners' three: they carry only failed attempts,
 * and an idle consumer still asks the broker for records twice a second (its fetch waits at most 500 ms), so twelve
 * such topics at three consumers each made about 70 requests a second for nothing.
 */
@Configuration(proxyBeanMethods = false)
public class RetryTopics extends RetryTopicConfigurationSupport implements DisposableBean {

    /** Headers carrying the failed attempt's outcome to the next topic, for the dead-letter handler. */
    static final String RESPONSE_STATUS_HEADER = "orderflow-response-status";
    static final String LAST_ERROR_HEADER = "orderflow-last-error";

    @Bean
    NewTopic deliveryAttemptsTopic(DispatcherProperties properties) {
        return topic(DispatcherTopics.DELIVERY_ATTEMPTS, properties);
    }

    @Bean
    NewTopic slowDeliveryAttemptsTopic(DispatcherProperties properties) {
        return topic(DispatcherTopics.SLOW_DELIVERY_ATTEMPTS, properties);
    }

    private static NewTopic topic(String name, DispatcherProperties properties) {
        return TopicBuilder.name(name)
                .partitions(properties.topicPartitions())
                .replicas(properties.topicReplication())
                .build();
    }

    /** Resumes paused retry-topic partitions when their records fall due; the wrapper owns its lifecycle. */
    @Bean
    RetryTopicSchedulerWrapper retryTopicSchedulerWrapper() {
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.setThreadNamePrefix("webhook-retry-");
        return new RetryTopicSchedulerWrapper(scheduler);
    }

    @Bean
    RetryTopicConfiguration deliveryRetryTopics(KafkaTemplate<String, String> kafka, DispatcherProperties properties) {
        return retries(DispatcherTopics.DELIVERY_ATTEMPTS, kafka, properties);
    }

    /** The slow lane's own retry topics: its retries never wait behind the fast lane's, nor the other way round. */
    @Bean
    RetryTopicConfiguration slowDeliveryRetryTopics(KafkaTemplate<String, String> kafka,
                                                    DispatcherProperties properties) {
        return retries(DispatcherTopics.SLOW_DELIVERY_ATTEMPTS, kafka, properties);
    }

    /**
     * The container hands each failed record to its next topic with a send it waits for, one at a time; with the
     * producer's default {@code linger.ms} (5 ms since Kafka 4.0) each of those waits the linger out before it is even
     * sent. These sends go at once, through one template for both lanes, whose producer is closed with the context.
     */
    private KafkaTemplate<String, String> handOver;

    private synchronized KafkaTemplate<String, String> handOver(KafkaTemplate<String, String> kafka) {
        if (handOver == null) {
            handOver = new KafkaTemplate<>(kafka.getProducerFactory(), Map.of(ProducerConfig.LINGER_MS_CONFIG, 0));
        }
        return handOver;
    }

    @Override
    public synchronized void destroy() {
        if (handOver != null) {
            handOver.destroy();
        }
    }

    private RetryTopicConfiguration retries(String topic, KafkaTemplate<String, String> kafka,
                                                   DispatcherProperties properties) {
        long initial = properties.backoffInitial().toMillis();
        long longest = properties.backoffBefore(Math.max(1, properties.retryTopics())).toMillis();
        return RetryTopicConfigurationBuilder.newInstance()
                .includeTopic(topic)
                .maxAttempts(properties.retryTopics() + 1)
                .exponentialBackoff(initial, properties.multiplier(), Math.max(longest, initial + 1))
                .suffixTopicsWithIndexValues()
                .concurrency(1)
                .autoCreateTopicsWith(properties.topicPartitions(), properties.topicReplication())
                .notRetryOn(DeliveryFailedException.Exhausted.class)
                .traversingCauses()
                .dltHandlerMethod("deliveryAttempts", "onExhausted")
                .create(handOver(kafka));
    }

    /**
     * A failed attempt is expected (a subscriber is down) and {@link DeliveryAttempts} already logs it in one line;
     * spring-kafka would log each hand-over to the dead-letter topic again as an ERROR with a stack trace.
     */
    @Override
    protected Consumer<DeadLetterPublishingRecovererFactory> configureDeadLetterPublishingContainerFactory() {
        return DeadLetterPublishingRecovererFactory::neverLogListenerException;
    }

    /** Told of each failed record handed to its next topic; looked up when the first one is (no cycle at start). */
    @Autowired
    private ObjectProvider<FailureBacklog> backlog;

    @Override
    protected void configureCustomizers(CustomizersConfigurer customizers) {
        customizers.customizeDeadLetterPublishingRecoverer(recoverer ->
                recoverer.setExceptionHeadersCreator(RetryTopics::outcomeHeaders));
        customizers.customizeErrorHandler(handler -> handler.setRetryListeners(new RetryListener() {
            @Override
            public void failedDelivery(ConsumerRecord<?, ?> record, Exception failure, int deliveryAttempt) {
            }

            @Override
            public void recovered(ConsumerRecord<?, ?> record, Exception failure) {
                backlog.getObject().handedOver();
            }

            @Override
            public void recoveryFailed(ConsumerRecord<?, ?> record, Exception original, Exception failure) {
                backlog.getObject().handedOver();
            }
        }));
    }

    /**
     * The headers a failed attempt hands to its next topic, in place of spring-kafka's exception headers: the
     * subscriber's answer (status) and the error, replacing those of the attempt before. spring-kafka's own add the
     * exception's whole stack trace to every retry record, which says nothing the outcome does not (and adding a
     * headers function beside its own logs a warning per listener in spring-kafka 4.1); a failure that is not a
     * delivery's keeps its exception's class and message.
     */
    private static void outcomeHeaders(Headers headers, Exception exception, boolean isKey,
                                       DeadLetterPublishingRecoverer.HeaderNames names) {
        if (isKey) {
            return;
        }
        for (String name : List.of(RESPONSE_STATUS_HEADER, LAST_ERROR_HEADER, KafkaHeaders.EXCEPTION_FQCN,
                KafkaHeaders.EXCEPTION_MESSAGE)) {
            headers.remove(name);
        }
        for (Throwable cause = exception; cause != null; cause = cause.getCause()) {
            if (cause instanceof DeliveryFailedException failed) {
                if (failed.outcome().status() != null) {
                    headers.add(RESPONSE_STATUS_HEADER,
                            String.valueOf(failed.outcome().status()).getBytes(StandardCharsets.UTF_8));
                }
                headers.add(LAST_ERROR_HEADER, failed.outcome().error().getBytes(StandardCharsets.UTF_8));
                return;
            }
        }
        Throwable root = NestedExceptionUtils.getMostSpecificCause(exception);
        headers.add(KafkaHeaders.EXCEPTION_FQCN, root.getClass().getName().getBytes(StandardCharsets.UTF_8));
        headers.add(KafkaHeaders.EXCEPTION_MESSAGE, String.valueOf(root.getMessage()).getBytes(StandardCharsets.UTF_8));
    }
}
