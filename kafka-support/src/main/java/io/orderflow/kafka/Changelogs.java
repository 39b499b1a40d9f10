package io.orderflow.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The segments of a Streams app's changelogs, sized so that the log cleaner compacts them.
 *
 * <p>A compacted topic is compacted only outside its active segment, and by the broker's defaults a segment rolls at
 * 1 GiB or after 7 days. A changelog of 100,000 orders is about 65 MB a partition: it stays one active segment, never
 * compacted, so a restore reads every write each order ever made (3.3 per order on the orders changelog, the same on
 * its index rows), and the disk keeps them all. With segments of {@link #SEGMENT_BYTES} that roll at least every
 * {@link #SEGMENT_MS}, the cleaner keeps about one record per key and a restore reads about that (docs/operations.md,
 * "Stores after an unclean stop", has the measured effect).
 *
 * <p>Kafka Streams applies these settings when it creates a changelog ({@link #streamsProperties()}) and leaves an
 * existing changelog's settings alone, so {@link #align} sets them on the changelogs a service finds at its start.
 */
public final class Changelogs {

    private static final Logger log = LoggerFactory.getLogger(Changelogs.class);
    /** A changelog segment rolls at this size (the broker's default is 1 GiB). */
    static final int SEGMENT_BYTES = 16 * 1024 * 1024;
    /** A changelog segment rolls at the latest after this, so a quiet system's changelogs are compacted too. */
    static final Duration SEGMENT_MS = Duration.ofHours(1);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

    private Changelogs() {
    }

    /** The settings every changelog of the app is created with, as Streams properties ({@code topic.} prefixed). */
    static Map<String, Object> streamsProperties() {
        Map<String, Object> props = new HashMap<>();
        settings().forEach((name, value) -> props.put(StreamsConfig.topicPrefix(name), value));
        return props;
    }

    static Map<String, String> settings() {
        return Map.of(TopicConfig.SEGMENT_BYTES_CONFIG, String.valueOf(SEGMENT_BYTES),
                TopicConfig.SEGMENT_MS_CONFIG, String.valueOf(SEGMENT_MS.toMillis()));
    }

    /**
     * Sets {@link #settings()} on every existing changelog of the app whose settings differ ({@code
     * <application.id>-...-changelog}). A cluster that refuses (no right to alter topic configs, say) is logged at WARN
     * and the service starts anyway: the changelogs then keep the broker's segments.
     *
     * @param properties the app's Streams properties (the cluster and how to reach it)
     * @return the names of the changelogs changed
     */
    public static List<String> align(Map<?, ?> properties) {
        String application = String.valueOf(properties.get(StreamsConfig.APPLICATION_ID_CONFIG));
        try (Admin admin = Admin.create(StreamsApp.adminConfig(properties, application + "-changelogs",
                ADMIN_TIMEOUT))) {
            List<String> changed = align(admin, application);
            if (!changed.isEmpty()) {
                log.info("{}: changelog segments set to {} bytes, {} ms on {}", application, SEGMENT_BYTES,
                        SEGMENT_MS.toMillis(), changed);
            }
            return changed;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            log.warn("{}: could not set the changelogs' segments ({}); they keep the broker's, so the log cleaner "
                    + "compacts them late and a restore reads more", application, TopicProvisioner.reasons(e));
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    static List<String> align(Admin admin, String application)
            throws ExecutionException, InterruptedException, TimeoutException {
        Set<String> changelogs = admin.listTopics().names().get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS).stream()
                .filter(name -> name.startsWith(application + "-") && name.endsWith("-changelog"))
                .collect(Collectors.toSet());
        if (changelogs.isEmpty()) {
            return List.of();
        }
        List<ConfigResource> resources = changelogs.stream()
                .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name)).toList();
        Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all()
                .get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        Map<ConfigResource, Collection<AlterConfigOp>> changes = new HashMap<>();
        configs.forEach((resource, config) -> {
            List<AlterConfigOp> ops = new ArrayList<>();
            settings().forEach((name, value) -> {
                ConfigEntry entry = config.get(name);
                if (entry == null || !value.equals(entry.value())) {
                    ops.add(new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET));
                }
            });
            if (!ops.isEmpty()) {
                changes.put(resource, ops);
            }
        });
        if (!changes.isEmpty()) {
            admin.incrementalAlterConfigs(changes).all().get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
        return changes.keySet().stream().map(ConfigResource::name).sorted().toList();
    }
}
