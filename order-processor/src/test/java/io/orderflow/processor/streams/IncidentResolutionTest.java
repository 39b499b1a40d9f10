package io.orderflow.processor.streams;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.INSTANCE;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.progress;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.processor.order.OrderApplier;
import io.orderflow.processor.order.OrderFact;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.Incident;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An operator resolves an incident: a retry applies the set-aside record again and the order resumes where it stood
 * (or is set aside again with the new cause); a dismissal closes it with a note. Each keeps who acted and when, in the
 * incident's history and the order's timeline; a retry or dismissal of an unknown or closed incident changes nothing.
 */
class IncidentResolutionTest {

    private static final Caller OLGA = new Caller("person", "olga@example.com", "operator");

    /** A release with a bug in applying node details: every attempt throws until it is fixed. */
    private final AtomicBoolean broken = new AtomicBoolean();
    private final AgentDriver agent = new AgentDriver((before, facts, now) -> {
        if (broken.get() && facts.stream().anyMatch(OrderFact.NodePatched.class::isInstance)) {
            throw new IllegalStateException("node details cannot be applied");
        }
        return OrderApplier.applyAll(before, facts, now);
    });

    @BeforeEach
    void waitingForApproval() {
        agent.command(start(ORDER));
        agent.report(progress(1, 1, OrderStatus.WAITING));
        agent.report(approvalWait(Duration.ofDays(2).toMillis(), agent.now()));
        agent.drain();
    }

    @AfterEach
    void close() {
        agent.close();
    }

    private RunReport.NodeDetail detail() {
        return new RunReport.NodeDetail(ORDER, INSTANCE, "approve",
                new io.orderflow.schemas.model.NodePatch(NodeStatus.WAITING, null, null, null, null, null, null), null);
    }

    private Incident onlyIncident() {
        List<Incident> all = agent.storeValues(OrderAgent.INCIDENTS);
        assertThat(all).hasSize(1);
        return all.getFirst();
    }

    private Incident setAsideByABug() {
        broken.set(true);
        agent.report(detail());
        agent.drain();
        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.FAILED);
        assertThat(agent.approval(ORDER, "approve").status()).isEqualTo("cancelled");
        return onlyIncident();
    }

    @Test
    void anIncidentKeepsItsRecordAndWhereItWasRead() {
        Incident incident = setAsideByABug();

        assertThat(incident.status()).isEqualTo(Incident.OPEN);
        assertThat(incident.topic()).isEqualTo("run-reports");
        assertThat(incident.offset()).isNotNull();
        assertThat(incident.record().path("nodeId").asString()).isEqualTo("approve");
        assertThat(incident.history()).extracting(Incident.Step::action).containsExactly("raised");
    }

    @Test
    void aRetryAfterTheFixResumesTheOrderWhereItStood() {
        Incident incident = setAsideByABug();
        broken.set(false);

        CommandReply reply = agent.command(new OrderCommand.RetryIncident(ORDER, incident.id()), OLGA);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("status").asString()).isEqualTo("resolved");
        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.WAITING);
        assertThat(agent.state(ORDER).reason()).isNull();
        assertThat(agent.state(ORDER).waits()).singleElement().satisfies(w -> assertThat(w.nodeId()).isEqualTo("approve"));
        assertThat(agent.approval(ORDER, "approve").status()).isEqualTo("pending");
        assertThat(agent.timers()).isNotEmpty();
        assertThat(agent.state(ORDER).nodes().get("approve").status()).isEqualTo(NodeStatus.WAITING);
        assertThat(agent.state(ORDER).timeline().stream().map(e -> e.message()))
                .contains("Incident retried by olga@example.com");
        assertThat(agent.tasks()).contains(new NodeTask.ReviveRun(ORDER, INSTANCE, null));
        Incident after = onlyIncident();
        assertThat(after.status()).isEqualTo(Incident.RESOLVED);
        assertThat(after.history()).extracting(Incident.Step::action, Incident.Step::by)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("raised", null),
                        org.assertj.core.groups.Tuple.tuple("retried", "olga@example.com"));
    }

    @Test
    void aRetryThatFailsAgainOpensTheSameIncidentWithTheNewCause() {
        Incident incident = setAsideByABug();

        CommandReply reply = agent.command(new OrderCommand.RetryIncident(ORDER, incident.id()), OLGA);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("status").asString()).isEqualTo("open");
        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.FAILED);
        Incident after = onlyIncident();
        assertThat(after.id()).isEqualTo(incident.id());
        assertThat(after.open()).isTrue();
        assertThat(after.attempts()).isEqualTo(1);
        assertThat(after.history()).extracting(Incident.Step::action)
                .containsExactly("raised", "retried", "failed_again");
    }

    @Test
    void theRunnersIncidentIsRetriedByHandingItsTaskBack() {
        var task = Json.tree(new NodeTask.Advance(ORDER, INSTANCE));
        agent.report(new RunReport.Incident(ORDER, INSTANCE, "task Advance", "boom", task, "node-tasks", 0, 42L));
        agent.drain();
        Incident incident = onlyIncident();
        assertThat(incident.topic()).isEqualTo("node-tasks");
        assertThat(incident.offset()).isEqualTo(42L);

        CommandReply reply = agent.command(new OrderCommand.RetryIncident(ORDER, incident.id()), OLGA);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.WAITING);
        assertThat(agent.tasks()).containsExactly(new NodeTask.ReviveRun(ORDER, INSTANCE, task));

        agent.report(new RunReport.Incident(ORDER, INSTANCE, "task Advance", "boom again", task, "node-tasks", 0,
                43L));
        Incident again = onlyIncident();
        assertThat(again.open()).isTrue();
        assertThat(again.cause()).isEqualTo("boom again");
        assertThat(again.offset()).isEqualTo(43L);
    }

    @Test
    void aDismissalKeepsTheOrderAsItIsAndRecordsWhoAndWhy() {
        Incident incident = setAsideByABug();

        CommandReply reply = agent.command(new OrderCommand.DismissIncident(ORDER, incident.id(), "refunded by hand"),
                OLGA);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("status").asString()).isEqualTo("dismissed");
        assertThat(reply.body().has("stood")).isFalse();
        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.FAILED);
        assertThat(agent.state(ORDER).timeline().getLast().message())
                .isEqualTo("Incident dismissed by olga@example.com: refunded by hand");
        assertThat(onlyIncident().history().getLast())
                .isEqualTo(new Incident.Step(agent.now(), "dismissed", "olga@example.com", null, "refunded by hand"));
        assertThat(agent.tasks()).isEmpty();
    }

    @Test
    void aClosedOrUnknownIncidentIsRefusedAndNothingChanges() {
        Incident incident = setAsideByABug();
        agent.command(new OrderCommand.DismissIncident(ORDER, incident.id(), "handled"), OLGA);
        agent.drain();
        var before = agent.state(ORDER);

        CommandReply retry = agent.command(new OrderCommand.RetryIncident(ORDER, incident.id()), OLGA);
        CommandReply dismiss = agent.command(new OrderCommand.DismissIncident(ORDER, incident.id(), "again"), OLGA);
        CommandReply unknown = agent.command(new OrderCommand.RetryIncident(ORDER, ORDER + ":1"), OLGA);
        CommandReply noOrder = agent.command(new OrderCommand.RetryIncident("ord_nothing", "ord_nothing:1"), OLGA);

        assertThat(retry.kind()).isEqualTo(RejectionKind.INVALID_STATE);
        assertThat(retry.body().get("error").asString())
                .isEqualTo("Incident " + incident.id() + " is already dismissed.");
        assertThat(dismiss.kind()).isEqualTo(RejectionKind.INVALID_STATE);
        assertThat(unknown.kind()).isEqualTo(RejectionKind.NOT_FOUND);
        assertThat(unknown.body().get("error").asString()).isEqualTo("Incident " + ORDER + ":1 not found");
        assertThat(noOrder.kind()).isEqualTo(RejectionKind.NOT_FOUND);
        assertThat(agent.state(ORDER)).isEqualTo(before);
        assertThat(agent.tasks()).isEmpty();
        assertThat(agent.updates()).isEmpty();
    }
}
