package io.orderflow.runner.run;

import static io.orderflow.runner.run.DeciderScenario.CLOSED_HOLD;
import static io.orderflow.runner.run.DeciderScenario.FLOW_V2;
import static io.orderflow.runner.run.DeciderScenario.INSTANCE;
import static io.orderflow.runner.run.DeciderScenario.NOW;
import static io.orderflow.runner.run.DeciderScenario.OPEN_HOLD;
import static io.orderflow.runner.run.DeciderScenario.ORDER;
import static io.orderflow.runner.run.DeciderScenario.edge;
import static io.orderflow.runner.run.DeciderScenario.given;
import static io.orderflow.runner.run.DeciderScenario.json;
import static io.orderflow.runner.run.DeciderScenario.migrateToV2;
import static io.orderflow.runner.run.DeciderScenario.retry;
import static io.orderflow.runner.run.DeciderScenario.start;
import static io.orderflow.runner.run.DeciderScenario.started;
import static io.orderflow.runner.run.DeciderScenario.throughHold;
import static io.orderflow.runner.run.DeciderScenario.waitingForPayment;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.runner.run.RunFact.IncidentRaised;
import io.orderflow.runner.run.RunFact.NodeEntered;
import io.orderflow.runner.run.RunFact.NodeFailed;
import io.orderflow.runner.run.RunFact.NodeResumed;
import io.orderflow.runner.run.RunFact.NodeRetrying;
import io.orderflow.runner.run.RunFact.NodeRolledBack;
import io.orderflow.runner.run.RunFact.NodeSucceeded;
import io.orderflow.runner.run.RunFact.NodeWaiting;
import io.orderflow.runner.run.RunFact.NodeWrote;
import io.orderflow.runner.run.RunFact.ProgressSent;
import io.orderflow.runner.run.RunFact.RunContinued;
import io.orderflow.runner.run.RunFact.RunEnded;
import io.orderflow.runner.run.RunFact.RunFailed;
import io.orderflow.runner.run.RunFact.RunMigrated;
import io.orderflow.runner.run.RunFact.RunTerminated;
import io.orderflow.runner.run.RunFact.Revived;
import io.orderflow.runner.run.RunFact.SetAside;
import io.orderflow.runner.run.RunFact.TimerFired;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.Rollback;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The runner's rules as facts, decided by the decider alone: given the facts that made a run, when a task or a timer,
 * then what happened. The flow is {@link DeciderScenario#FLOW}: note → hold → flaky → pay → done / unpaid.
 */
class RunDeciderScenarioTest {

    private static final JsonNode PAYMENT = json("{\"amount\":12.5}");
    private static final NodeTask.ResumeNode PAID = new NodeTask.ResumeNode(ORDER, INSTANCE, "pay", "received",
            PAYMENT);

    // ---- start and advance ------------------------------------------------------------------------------------

    @Test
    void whenStarted_thenTheNodesRunInTurnUntilTheRunWaits() {
        given()
                .when(start(0))
                .then(started(0), new ProgressSent(1),
                        new NodeEntered("note"),
                        new NodeWrote("note", null, json("{\"noted\":true}"), null),
                        new NodeSucceeded("note", json("{\"noted\":true}"), edge("e1"), List.of("hold")),
                        new NodeEntered("hold"),
                        new NodeWrote("hold", null, null, List.of(OPEN_HOLD)),
                        new NodeSucceeded("hold", json("{\"holdId\":\"hold-1\"}"), edge("e2"), List.of("flaky")),
                        new NodeEntered("flaky"),
                        new NodeSucceeded("flaky", Json.object(), edge("e3"), List.of("pay")),
                        new NodeEntered("pay"),
                        new NodeWaiting("pay"),
                        new ProgressSent(2))
                .thenTimers();
    }

    @Test
    void givenAStartedRun_whenTheSameStartArrivesAgain_thenNothingHappens() {
        given(waitingForPayment()).when(start(0)).thenNothing();
    }

    @Test
    void givenARunWithFewStepsPerTask_whenStarted_thenItStopsAfterThemAndAsksItselfToAdvance() {
        var scenario = given(new RunSettings(1440, 10_000, 2)).when(start(0));

        scenario.then(started(0), new ProgressSent(1),
                new NodeEntered("note"),
                new NodeWrote("note", null, json("{\"noted\":true}"), null),
                new NodeSucceeded("note", json("{\"noted\":true}"), edge("e1"), List.of("hold")),
                new NodeEntered("hold"),
                new NodeWrote("hold", null, null, List.of(OPEN_HOLD)),
                new NodeSucceeded("hold", json("{\"holdId\":\"hold-1\"}"), edge("e2"), List.of("flaky")));
        assertThat(scenario.decision().tasks()).containsExactly(new NodeTask.Advance(ORDER, INSTANCE));
    }

    @Test
    void givenARunAtItsStepLimit_whenItAdvances_thenItContinuesAsTheNextGeneration() {
        var scenario = given(new RunSettings(1440, 2, 50), throughHold(0).toArray(RunFact[]::new))
                .when(new NodeTask.Advance(ORDER, INSTANCE));

        scenario.then(new RunContinued(ORDER + ".2", 2), new ProgressSent(1));
        assertThat(scenario.decision().tasks()).containsExactly(new NodeTask.Advance(ORDER, ORDER + ".2"));
        assertThat(scenario.applied().steps()).as("steps count anew").isZero();
    }

    // ---- waits --------------------------------------------------------------------------------------------------

    @Test
    void givenARunWaitingForPayment_whenPaid_thenThePayloadIsStoredAndTheRunCompletesKeepingWhatItHolds() {
        var scenario = given(waitingForPayment()).when(PAID);

        scenario.then(new NodeResumed("pay", "received"),
                new NodeWrote("pay", null, json("{\"noted\":true,\"payment_received\":{\"amount\":12.5}}"), null),
                new NodeSucceeded("pay", PAYMENT, Map.of("e4", EdgeState.ACTIVE, "e5", EdgeState.INACTIVE),
                        List.of("done")),
                new ProgressSent(3),
                new NodeEntered("done"),
                new RunEnded("done", OrderStatus.COMPLETED, null, json("{\"outcome\":\"completed\"}")),
                new NodeWrote("done", null, null, List.of(CLOSED_HOLD)),
                new ProgressSent(4));
        RunInstance completed = scenario.applied();
        assertThat(completed.state()).isEqualTo(RunInstance.State.COMPLETE);
        assertThat(completed.nodes()).containsEntry("unpaid", NodeStatus.SKIPPED);
        assertThat(completed.edges()).containsEntry("e5", EdgeState.INACTIVE);
    }

    @Test
    void givenARunWaitingForPayment_whenItTimesOut_thenItEndsCancelledAndGivesBackWhatItHolds() {
        given(waitingForPayment())
                .when(new NodeTask.ResumeNode(ORDER, INSTANCE, "pay", "timeout", null))
                .then(new NodeResumed("pay", "timeout"),
                        new NodeSucceeded("pay", Json.object(), Map.of("e4", EdgeState.INACTIVE,
                                "e5", EdgeState.ACTIVE), List.of("unpaid")),
                        new ProgressSent(3),
                        new NodeEntered("unpaid"),
                        new RunEnded("unpaid", OrderStatus.CANCELLED, "Unpaid",
                                json("{\"outcome\":\"cancelled\",\"reason\":\"Unpaid\"}")),
                        new NodeWrote("unpaid", null, null, List.of(CLOSED_HOLD)),
                        new ProgressSent(4));
    }

    @Test
    void givenARunWaitingForPayment_whenAnotherNodeIsResumed_thenNothingHappens() {
        given(waitingForPayment())
                .when(new NodeTask.ResumeNode(ORDER, INSTANCE, "flaky", "received", PAYMENT))
                .thenNothing();
    }

    @Test
    void givenARunWaitingForPayment_whenAResumeOfAnEarlierInstanceArrives_thenNothingHappens() {
        given(waitingForPayment())
                .when(new NodeTask.ResumeNode(ORDER, ORDER + ".0", "pay", "received", PAYMENT))
                .thenNothing();
    }

    // ---- retries and failure ----------------------------------------------------------------------------------

    @Test
    void givenANodeThatThrows_whenItRuns_thenItIsTriedAgainAfterTheBackoff() {
        given(throughHold(1).toArray(RunFact[]::new))
                .when(new NodeTask.Advance(ORDER, INSTANCE))
                .then(new NodeEntered("flaky"), new NodeRetrying("flaky", retry(NOW + 1_000)))
                .thenTimers(retry(NOW + 1_000));
    }

    @Test
    void givenANodeWaitingToBeRetried_whenItsTimerFiresAndItWorks_thenTheRunGoesOnAndItsAttemptsAreForgotten() {
        List<RunFact> facts = throughHold(1);
        facts.addAll(List.of(new NodeEntered("flaky"), new NodeRetrying("flaky", retry(NOW + 1_000))));

        var scenario = given(facts.toArray(RunFact[]::new)).when(retry(NOW + 1_000));

        scenario.then(new TimerFired(retry(NOW + 1_000)),
                new NodeEntered("flaky"),
                new NodeSucceeded("flaky", Json.object(), edge("e3"), List.of("pay")),
                new ProgressSent(2),
                new NodeEntered("pay"),
                new NodeWaiting("pay"),
                new ProgressSent(3));
        assertThat(scenario.applied().attempts()).containsOnlyKeys("pay");
        assertThat(scenario.applied().runsOf("flaky")).as("a retry is the same run").isEqualTo(1);
        assertThat(scenario.applied().timer()).isNull();
    }

    @Test
    void givenANodeOnItsLastAttempt_whenItThrowsAgain_thenItFailsAndTheCompletedNodesAreRolledBackInReverse() {
        List<RunFact> facts = throughHold(5);
        facts.addAll(List.of(new NodeEntered("flaky"), new NodeRetrying("flaky", retry(NOW + 1_000)),
                new TimerFired(retry(NOW + 1_000)),
                new NodeEntered("flaky"), new NodeRetrying("flaky", retry(NOW + 3_000))));

        var scenario = given(facts.toArray(RunFact[]::new)).when(retry(NOW + 3_000));

        scenario.then(new TimerFired(retry(NOW + 3_000)),
                new NodeEntered("flaky"),
                new NodeFailed("flaky"),
                new NodeWrote("hold", null, null, List.of(CLOSED_HOLD)),
                new NodeRolledBack("hold"),
                new NodeRolledBack("note"),
                new RunFailed("Flaky failed: attempt 3 failed", new Rollback("complete", null)),
                new ProgressSent(2));
        assertThat(scenario.applied().queryState()).isEqualTo("errored");
    }

    @Test
    void givenARetryTimerThatIsNoLongerTheInstances_whenItFires_thenNothingHappens() {
        List<RunFact> facts = throughHold(1);
        facts.addAll(List.of(new NodeEntered("flaky"), new NodeRetrying("flaky", retry(NOW + 1_000))));

        given(facts.toArray(RunFact[]::new)).when(retry(NOW + 999)).thenNothing();
    }

    // ---- the order's agent ends the run -------------------------------------------------------------------------

    @Test
    void givenARunHoldingStock_whenTerminated_thenTheStockIsGivenBackAndTheRunEnds() {
        var scenario = given(waitingForPayment())
                .when(new NodeTask.TerminateRun(ORDER, INSTANCE, "Cancelled via API"));

        scenario.then(new NodeWrote("cancel", null, null, List.of(CLOSED_HOLD)), new RunTerminated());
        assertThat(scenario.applied().setAside()).as("a cancel keeps nothing for a retry").isNull();
    }

    @Test
    void givenATerminatedRun_whenPaid_thenNothingHappens() {
        List<RunFact> facts = new ArrayList<>(List.of(waitingForPayment()));
        facts.add(new RunTerminated());

        given(facts.toArray(RunFact[]::new)).when(PAID).thenNothing();
    }

    @Test
    void givenAWaitingRun_whenTerminatedForAnIncident_thenTheRunIsKeptAsItStoodForARetry() {
        var waiting = given(waitingForPayment());

        waiting.when(new NodeTask.TerminateRun(ORDER, INSTANCE, RunDecider.INCIDENT_REASON + "broken"))
                .then(new SetAside(Json.tree(waiting.state())),
                        new NodeWrote("cancel", null, null, List.of(CLOSED_HOLD)), new RunTerminated());
    }

    // ---- incidents ----------------------------------------------------------------------------------------------

    @Test
    void givenAWaitingRun_whenItsTaskCannotBeHandled_thenItIsSetAsideHavingGivenBackWhatItHolds() {
        var waiting = given(waitingForPayment());
        JsonNode stood = Json.tree(waiting.state());

        var scenario = waiting.whenSetAside("task ResumeNode", "Its task ResumeNode could not be handled: boom", stood);

        scenario.then(new NodeWrote("incident", null, null, List.of(CLOSED_HOLD)),
                new IncidentRaised("Its task ResumeNode could not be handled: boom"),
                new SetAside(stood));
        assertThat(scenario.applied().status()).isEqualTo(OrderStatus.FAILED);
        assertThat(scenario.applied().ended()).isTrue();
    }

    @Test
    void givenARunSetAside_whenRevivedWithItsTask_thenItIsPutBackAsItStoodKeepingItsHoldsClosedAndTheTaskIsDecided() {
        var waiting = given(waitingForPayment());
        RunInstance stood = waiting.state();
        List<RunFact> facts = new ArrayList<>(List.of(waitingForPayment()));
        facts.addAll(List.of(new NodeWrote("incident", null, null, List.of(CLOSED_HOLD)),
                new IncidentRaised("boom"), new SetAside(Json.tree(stood))));

        var scenario = given(facts.toArray(RunFact[]::new))
                .when(new NodeTask.ReviveRun(ORDER, INSTANCE, Json.tree(PAID)));

        assertThat(scenario.decision().facts().getFirst()).isEqualTo(new Revived(stood));
        assertThat(scenario.decision().facts().get(1)).isEqualTo(new NodeResumed("pay", "received"));
        RunInstance revived = scenario.applied();
        assertThat(revived.state()).isEqualTo(RunInstance.State.COMPLETE);
        assertThat(revived.setAside()).isNull();
        assertThat(revived.holds()).as("given back at the incident, not held again").containsExactly(CLOSED_HOLD);
    }

    @Test
    void givenNoRunSetAside_whenRevivedWithoutATask_thenItIsAnIncidentAgain() {
        given(waitingForPayment())
                .when(new NodeTask.ReviveRun(ORDER, ORDER + ".9", null))
                .then(new NodeWrote("incident", null, null, List.of(CLOSED_HOLD)),
                        new IncidentRaised("There is no set-aside run instance of ord_1.9 to put back"));
    }

    // ---- migration -----------------------------------------------------------------------------------------------

    /** The facts of a run waiting at {@code pay} and then migrated to {@link DeciderScenario#FLOW_V2}. */
    private static RunFact[] migratedWaitingForPayment() {
        List<RunFact> facts = new ArrayList<>(List.of(waitingForPayment()));
        facts.addAll(List.of(migratedToV2(), new ProgressSent(3)));
        return facts.toArray(RunFact[]::new);
    }

    private static RunMigrated migratedToV2() {
        return new RunMigrated(FLOW_V2, migrateToV2().mapping(),
                List.of("note", "hold", "payment", "confirm", "done", "unpaid"), List.of("e1", "e2", "e4", "e5", "e6"));
    }

    @Test
    void givenARunWaitingForPayment_whenMigrated_thenItWaitsAtTheRenamedNodeOfTheNewVersion() {
        var scenario = given(waitingForPayment()).when(migrateToV2());

        scenario.then(migratedToV2(), new ProgressSent(3)).thenTimers();
        RunInstance migrated = scenario.applied();
        assertThat(migrated.flow()).isEqualTo(FLOW_V2);
        assertThat(migrated.state()).isEqualTo(RunInstance.State.WAITING);
        assertThat(migrated.waitingNode()).isEqualTo("payment");
        assertThat(migrated.nodes()).containsExactly(Map.entry("note", NodeStatus.SUCCEEDED),
                Map.entry("hold", NodeStatus.SUCCEEDED), Map.entry("payment", NodeStatus.WAITING),
                Map.entry("confirm", NodeStatus.PENDING), Map.entry("done", NodeStatus.PENDING),
                Map.entry("unpaid", NodeStatus.PENDING));
        assertThat(migrated.edges()).containsExactly(Map.entry("e1", EdgeState.ACTIVE),
                Map.entry("e2", EdgeState.ACTIVE), Map.entry("e4", EdgeState.PENDING),
                Map.entry("e5", EdgeState.PENDING), Map.entry("e6", EdgeState.PENDING));
        assertThat(migrated.completed()).as("flaky, dropped, is not rolled back").containsExactly("note", "hold");
        assertThat(migrated.outputs().propertyNames()).containsExactlyInAnyOrder("note", "hold");
        assertThat(migrated.attempts()).containsExactly(Map.entry("payment", 1));
        assertThat(migrated.runs()).containsOnlyKeys("note", "hold", "payment");
        assertThat(migrated.holds()).containsExactly(OPEN_HOLD);
        assertThat(scenario.decision().reports().getFirst().unpacked())
                .singleElement().isInstanceOfSatisfying(RunReport.Progress.class, progress -> {
                    assertThat(progress.status()).isEqualTo(OrderStatus.WAITING);
                    assertThat(progress.nodes()).containsKeys("payment", "confirm").doesNotContainKeys("pay", "flaky");
                });
    }

    @Test
    void givenAMigratedRun_whenPaidAtTheRenamedNode_thenTheNewVersionsNextNodeRunsBeforeTheEnd() {
        var scenario = given(migratedWaitingForPayment())
                .when(new NodeTask.ResumeNode(ORDER, INSTANCE, "payment", "received", PAYMENT));

        scenario.then(new NodeResumed("payment", "received"),
                new NodeWrote("payment", null, json("{\"noted\":true,\"payment_received\":{\"amount\":12.5}}"),
                        null),
                new NodeSucceeded("payment", PAYMENT, Map.of("e4", EdgeState.ACTIVE, "e5", EdgeState.INACTIVE),
                        List.of("confirm")),
                new ProgressSent(4),
                new NodeEntered("confirm"),
                new NodeSucceeded("confirm", json("{\"noted\":true}"), edge("e6"), List.of("done")),
                new NodeEntered("done"),
                new RunEnded("done", OrderStatus.COMPLETED, null, json("{\"outcome\":\"completed\"}")),
                new NodeWrote("done", null, null, List.of(CLOSED_HOLD)),
                new ProgressSent(5));
        assertThat(scenario.applied().completed()).containsExactly("note", "hold", "payment", "confirm", "done");
    }

    @Test
    void givenAMigratedRun_whenTheOldNodeIsResumedOrTheMigrationArrivesAgain_thenNothingHappens() {
        given(migratedWaitingForPayment()).when(PAID).thenNothing();
        given(migratedWaitingForPayment()).when(migrateToV2()).thenNothing();
    }

    @Test
    void givenAnEndedRun_whenMigrated_thenNothingHappens() {
        List<RunFact> facts = new ArrayList<>(List.of(waitingForPayment()));
        facts.add(new RunTerminated());

        given(facts.toArray(RunFact[]::new)).when(migrateToV2()).thenNothing();
    }

    @Test
    void givenARunNotWaiting_whenMigrated_thenItIsAnIncidentHavingGivenBackWhatItHolds() {
        List<RunFact> facts = throughHold(1);
        facts.addAll(List.of(new NodeEntered("flaky"), new NodeRetrying("flaky", retry(NOW + 1_000))));
        String cause = "The run is not waiting at a node the migration to version 2 keeps";

        var scenario = given(facts.toArray(RunFact[]::new)).when(migrateToV2());

        scenario.then(new NodeWrote("incident", null, null, List.of(CLOSED_HOLD)), new IncidentRaised(cause));
        assertThat(scenario.decision().reports().getFirst().unpacked().getFirst())
                .isEqualTo(new RunReport.Incident(ORDER, INSTANCE, "task MigrateRun", cause));
        assertThat(scenario.applied().flow()).as("still on its version").isEqualTo(DeciderScenario.FLOW);
        assertThat(scenario.applied().queryState()).isEqualTo("terminated");
    }

    @Test
    void givenARunWaitingAtANodeTheMigrationDrops_whenMigrated_thenItIsAnIncident() {
        given(waitingForPayment())
                .when(new NodeTask.MigrateRun(ORDER, INSTANCE, FLOW_V2, Map.of("note", "note", "hold", "hold")))
                .then(new NodeWrote("incident", null, null, List.of(CLOSED_HOLD)),
                        new IncidentRaised("The run is not waiting at a node the migration to version 2 keeps"));
    }

    // ---- queries ------------------------------------------------------------------------------------------------

    @Test
    void givenAWaitingRun_whenQueried_thenNothingChangesAndItsStatusIsReported() {
        var scenario = given(waitingForPayment()).when(new NodeTask.QueryInstance(ORDER, INSTANCE, 1));

        scenario.thenNothing();
        assertThat(scenario.decision().reports()).hasSize(1);
    }

    // ---- deciding and applying agree ------------------------------------------------------------------------------

    @Test
    void theInstanceTheStartDecidesIsTheOneItsFactsApply() {
        var scenario = given().when(start(0));

        RunInstance applied = scenario.applied();

        assertThat(applied).isEqualTo(RunApplier.applyAll(null, List.of(waitingForPayment())));
        assertThat(applied.state()).isEqualTo(RunInstance.State.WAITING);
        assertThat(applied.waitingNode()).isEqualTo("pay");
        assertThat(applied.vars()).isEqualTo(json("{\"noted\":true}"));
        assertThat(applied.completed()).containsExactly("note", "hold", "flaky");
        assertThat(applied.steps()).isEqualTo(4);
    }
}
