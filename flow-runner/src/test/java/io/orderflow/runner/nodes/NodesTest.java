package io.orderflow.runner.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.runner.connectors.Connectors;
import io.orderflow.runner.money.Money;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Node types on their own, without a topology. */
class NodesTest {

    @Test
    void extractOrderParsesAnEmail() {
        ArrayNode lines = ExtractOrderNode.parse("""
                Hello team,
                please send us
                - 12 x paper-a4 Copy paper @ 5.10
                3 pcs TONER-K
                Regards, Bob""");

        assertThat(Json.write(lines)).isEqualTo("[{\"sku\":\"PAPER-A4\",\"name\":\"Copy paper\",\"qty\":12,"
                + "\"unitPrice\":5.10},{\"sku\":\"TONER-K\",\"qty\":3}]");
    }

    @Test
    void extractOrderTakesTheEmptyBranchWithoutLines() {
        var done = (NodeOutcome.Done) new ExtractOrderNode().execute(context("{\"documentText\":\"Hi there\"}", "{}"));
        assertThat(done.branch()).isEqualTo("empty");
    }

    @Test
    void policyRejectsPoBoxesAndCreditAboveTheLimit() {
        String settings = """
                {"rules":[{"rule":"no_po_box"},{"rule":"credit_limit","limit":1000},{"rule":"max_total","limit":5000}]}""";
        var pass = (NodeOutcome.Done) new PolicyNode().execute(context(
                "{\"total\":900,\"baseTotal\":900,\"meta\":{\"shipTo\":\"1 Main St\"}}", settings));
        var fail = (NodeOutcome.Done) new PolicyNode().execute(context(
                "{\"total\":900,\"baseTotal\":900,\"meta\":{\"shipTo\":\"P.O. Box 12, Springfield\"}}", settings,
                "{\"creditUsed\":200}"));

        assertThat(pass.branch()).isEqualTo("pass");
        assertThat(fail.branch()).isEqualTo("fail");
        assertThat(fail.summary()).isEqualTo("Cannot ship to a P.O. box; Credit limit of 1000 USD exceeded");
    }

    @Test
    void approvalDefaultsFollowTheSpec() {
        var wait = (NodeOutcome.Wait) new ApprovalNode().execute(contextWithTitle("{\"total\":5}", "{}", null));
        assertThat(wait.title()).isEqualTo("Approve order ord_x");
        assertThat(wait.assignee()).isEqualTo("manager");
        assertThat(wait.timeout()).hasDays(2);
    }

    @Test
    void anApprovalsTitleIsItsTitleSettingElseTheContractsDefaultNotTheNodesLabel() {
        // the contract: "title (template; default Approve order {{order.id}})"
        var unset = (NodeOutcome.Wait) new ApprovalNode().execute(contextWithTitle("{}", "{}", "Manager sign-off"));
        var set = (NodeOutcome.Wait) new ApprovalNode().execute(contextWithTitle("{}",
                "{\"title\": \"Sign {{order.id}}\"}", "Manager sign-off"));

        assertThat(unset.title()).isEqualTo("Approve order ord_x");
        assertThat(set.title()).isEqualTo("Sign ord_x");
    }

    @Test
    void anAuthorizeOnlyCaptureThatFinishesOkSendsOrderPaid() {
        // the contract: order.paid when "commerce.capture_payment finishes on its ok branch"
        var node = new CapturePaymentNode();
        var done = (NodeOutcome.Done) node.execute(context("{\"total\": 40, \"currency\": \"USD\"}",
                "{\"authorizeOnly\": true}"));

        assertThat(done.branch()).isEqualTo("ok");
        assertThat(done.output().get("captured").asBoolean()).isFalse();
        assertThat(node.eventOn(done.branch(), done.output())).isEqualTo("order.paid");
        assertThat(node.eventOn("declined", done.output())).isNull();
    }

    @Test
    void waitForEventDefaultsFollowTheSpec() {
        var wait = (NodeOutcome.Wait) new WaitForEventNode().execute(context("{}", "{}"));
        assertThat(wait.event()).isEqualTo("payment.received");
        assertThat(wait.timeout()).hasDays(30);
        assertThat(io.orderflow.schemas.model.EventNames.varsKey("return.requested")).isEqualTo("return_requested");
    }

    @Test
    void controlWaitIsScaledButNeverBelowOneSecond() {
        var day = (NodeOutcome.Sleep) new ControlWaitNode().execute(context("{}", "{\"duration\":\"1d\"}"));
        var blink = (NodeOutcome.Sleep) new ControlWaitNode().execute(context("{}", "{\"duration\":\"10s\"}"));
        assertThat(day.millis()).isEqualTo(60_000);
        assertThat(blink.millis()).isEqualTo(1_000);
    }

    private static NodeContext context(String order, String settings) {
        return context(order, settings, "{}");
    }

    private static NodeContext context(String order, String settings, String vars) {
        return build(order, settings, vars, "Node");
    }

    private static NodeContext contextWithTitle(String order, String settings, String title) {
        return build(order, settings, "{}", title);
    }

    private static NodeContext build(String order, String settings, String vars, String title) {
        TestRun instance = new TestRun();
        instance.order = (ObjectNode) Json.MAPPER.readTree(order);
        instance.order.put("id", "ord_x");
        instance.vars = (ObjectNode) Json.MAPPER.readTree(vars);
        instance.outputs = Json.object();
        NodeDefinition definition = new NodeDefinition("n", "test", title, Json.MAPPER.readTree(settings), null);
        return new NodeContext(instance, definition, 1, Connectors.mock(), Money.seeded(), 1440, 0);
    }
}
