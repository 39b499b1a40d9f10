package io.orderflow.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the static members of a Streams app's group that are this very process under an earlier instance id.
 *
 * <p>A static member stays in its group after its process dies, until its session times out. When the broker that
 * coordinates the group restarts too (the standalone system's in-process broker), the group coordinator of Kafka 4.3.1
 * (where it was seen; nothing says a later release differs) can load such a member and never time it out: if the
 * process comes back under another instance id (its data moved, its host renamed, an older version's id), the group
 * waits for the old member to rejoin, and the app's tasks never start.
 *
 * <p>Such a member is recognised by its client id: Streams names its consumers after the process id it keeps in its
 * state directory ({@code <application.id>-<process id>-StreamThread-<n>-consumer}), so a member with this process's
 * consumer client id under an instance id that is not this process's own is this process's past, which no other live
 * process can be. Members of other instances have other process ids and are never touched.
 */
public final class FormerMembers {

    private static final Logger log = LoggerFactory.getLogger(FormerMembers.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private FormerMembers() {
    }

    /** The instance id a Streams app's consumers are configured with ({@code properties}), if they are static. */
    public static Optional<String> instanceId(Properties properties) {
        Object instanceId = properties.getOrDefault(
                StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG),
                properties.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
        return Optional.ofNullable(instanceId).map(Object::toString);
    }

    /**
     * The static members of {@code group} with one of {@code consumerClientIds} whose instance id does not begin with
     * {@code instanceId} (Streams adds {@code -<thread>} to it).
     */
    public static List<MemberDescription> of(Collection<MemberDescription> members,
                                             Collection<String> consumerClientIds, String instanceId) {
        return members.stream()
                .filter(member -> consumerClientIds.contains(member.clientId()))
                .filter(member -> member.groupInstanceId()
                        .filter(id -> !id.equals(instanceId) && !id.startsWith(instanceId + "-")).isPresent())
                .toList();
    }

    /** Removes {@code former} from {@code group}; answers the instance ids removed (none when the cluster refused). */
    public static List<String> remove(Admin admin, String group, Collection<MemberDescription> former) {
        List<String> instanceIds = former.stream().map(member -> member.groupInstanceId().orElseThrow()).toList();
        if (instanceIds.isEmpty()) {
            return List.of();
        }
        try {
            admin.removeMembersFromConsumerGroup(group, new RemoveMembersFromConsumerGroupOptions(
                            instanceIds.stream().map(MemberToRemove::new).toList()))
                    .all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            log.warn("Removed {} from the group {}: earlier instance ids of this process, which the group waited for "
                    + "to rejoin", instanceIds, group);
            return instanceIds;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            log.warn("Could not remove {} from the group {}: {}", instanceIds, group, TopicProvisioner.reasons(e));
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }
}
