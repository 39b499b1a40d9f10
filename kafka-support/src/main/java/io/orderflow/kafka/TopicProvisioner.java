package io.orderflow.kafka;

import io.orderflow.schemas.topics.Topic;
import io.orderflow.schemas.topics.Topics;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Creates the topics of the registry that are missing; existing topics are left as they are. */
public final class TopicProvisioner {

    private static final Logger log = LoggerFactory.getLogger(TopicProvisioner.class);

    private TopicProvisioner() {
    }

    /**
     * Creates the missing topics on {@code KAFKA_BOOTSTRAP_SERVERS} with {@code TOPIC_PARTITIONS} (default 6)
     * partitions and {@code TOPIC_REPLICATION} (default 1) replicas; docker-compose runs it once before the services.
     */
    public static void main(String[] args) {
        var env = System.getenv();
        createMissing(env.getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"),
                Integer.parseInt(env.getOrDefault("TOPIC_PARTITIONS", "6")),
                Short.parseShort(env.getOrDefault("TOPIC_REPLICATION", "1")));
    }

    public static void createMissing(String bootstrapServers, int partitions, short replication) {
        Map<String, Object> config = new HashMap<>(SocketBuffers.client());
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        try (Admin admin = Admin.create(config)) {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = Topics.ALL.stream()
                    .filter(topic -> !existing.contains(topic.name()))
                    .map(topic -> newTopic(topic, partitions, replication))
                    .toList();
            if (missing.isEmpty()) {
                return;
            }
            try {
                admin.createTopics(missing).all().get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            log.info("Created topics {}", missing.stream().map(NewTopic::name).toList());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating topics", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Could not create topics on " + bootstrapServers, e.getCause());
        }
    }

    private static NewTopic newTopic(Topic<?, ?> topic, int partitions, short replication) {
        NewTopic newTopic = new NewTopic(topic.name(), partitions, replication);
        if (topic.compacted()) {
            newTopic.configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
        }
        return newTopic;
    }
}
