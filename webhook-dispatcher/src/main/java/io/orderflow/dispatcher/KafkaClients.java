package io.orderflow.dispatcher;

import io.orderflow.kafka.KafkaSettings;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaConsumerFactoryCustomizer;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.KafkaAdmin;

/**
 * Hands spring-kafka's clients (the listeners' consumers, the template's producer, the admin that creates the
 * attempts topic and its retry and dead-letter topics) the client properties every client of the services starts from
 * ({@link KafkaSettings#clientProperties()}: {@code security.protocol}, SASL, TLS, ...). Spring Boot's settings of
 * {@code webhook-dispatcher.yaml} (serializers, acks, group) stay as they are; the pass-through adds what they do not
 * set. The topics the admin creates get {@code TOPIC_MIN_ISR} as every topic of the services does.
 */
@Configuration(proxyBeanMethods = false)
public class KafkaClients {

    @Bean
    DefaultKafkaProducerFactoryCustomizer clientPropertiesOfProducers(KafkaSettings kafka) {
        return factory -> factory.updateConfigs(absentFrom(factory.getConfigurationProperties(), kafka));
    }

    @Bean
    DefaultKafkaConsumerFactoryCustomizer clientPropertiesOfConsumers(KafkaSettings kafka) {
        return factory -> factory.updateConfigs(absentFrom(factory.getConfigurationProperties(), kafka));
    }

    /** Replaces Spring Boot's admin, which would see only {@code spring.kafka.*}. */
    @Bean
    KafkaAdmin kafkaAdmin(KafkaProperties properties, KafkaSettings kafka) {
        Map<String, Object> config = properties.buildAdminProperties();
        config.putAll(absentFrom(config, kafka));
        Map<String, String> topicConfig = kafka.topicConfig();
        return new KafkaAdmin(config) {
            @Override
            protected Collection<NewTopic> newTopics() {
                Collection<NewTopic> topics = super.newTopics();
                topics.forEach(topic -> {
                    Map<String, String> configs = new HashMap<>(topicConfig);
                    if (topic.configs() != null) {
                        configs.putAll(topic.configs());
                    }
                    topic.configs(configs);
                });
                return topics;
            }
        };
    }

    private static Map<String, Object> absentFrom(Map<String, Object> present, KafkaSettings kafka) {
        Map<String, Object> extra = new HashMap<>(kafka.clientProperties());
        extra.keySet().removeAll(present.keySet());
        return extra;
    }
}
