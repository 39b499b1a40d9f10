package io.orderflow.runner.nodes;

import static io.orderflow.runner.nodes.NodeScenario.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Every node type of the runner's catalogue on its own: what it does when it succeeds, how it fails, and the edge
 * cases the contract and docs/flows.md name (defaults, branches, {@code meta.simulate}, compensation). One nested
 * class per type; {@link #every_node_type_of_the_catalogue_has_its_scenarios} keeps the list complete.
 */
class NodeScenariosTest {

    /** The ids the mock connectors hand out for node {@code n} of {@link NodeScenario#ORDER}, first attempt. */
    private static String ref(String prefix) {
        return prefix + "-" + NodeScenario.ORDER + "-g1-n-a1";
    }

    @Test
    void every_node_type_of_the_catalogue_has_its_scenarios() {
        Set<String> covered = Arrays.stream(NodeScenariosTest.class.getDeclaredClasses())
                .filter(type -> type.isAnnotationPresent(Nested.class))
                .map(type -> {
                    try {
                        return (String) type.getDeclaredField("TYPE").get(null);
                    } catch (ReflectiveOperationException e) {
                        throw new AssertionError(type.getSimpleName() + " names no TYPE", e);
                    }
                })
                .collect(Collectors.toSet());
        assertThat(covered).containsExactlyInAnyOrderElementsOf(NodeCatalogue.standard().types());
    }

    @Nested
    class ExtractOrder {
        static final String TYPE = "extract_order";

        @Test
        void keeps_the_lines_the_order_came_with() {
            given(TYPE).order("{\"lines\": [{\"sku\": \"WIDGET-1\", \"qty\": 2}], \"documentText\": \"9 x GADGET-1\"}")
                    .whenExecuted().finishesOn("ok").output("source", "\"input\"")
                    .summary("Kept 1 line(s) from the order input")
                    .order("lines", "[{\"sku\": \"WIDGET-1\", \"qty\": 2}]");
        }

        @Test
        void reads_lines_from_the_document_text() {
            given(TYPE).order("{\"documentText\": \"Hello,\\n3 x widget-1 Blue widget @ 12.50\\n"
                            + "\\u2022 2 pcs GADGET-1\"}")
                    .whenExecuted().finishesOn("ok").output("source", "\"document\"")
                    .summary("Extracted 2 line(s) from the document")
                    .order("lines", "[{\"sku\": \"WIDGET-1\", \"name\": \"Blue widget\", \"qty\": 3, "
                            + "\"unitPrice\": 12.50}, {\"sku\": \"GADGET-1\", \"qty\": 2}]");
        }

        @Test
        void a_document_without_order_lines_takes_the_empty_branch() {
            given(TYPE).order("{\"documentText\": \"Please call me back.\"}")
                    .whenExecuted().finishesOn("empty").summary("No order lines found in the document")
                    .order("lines", "[]");
        }
    }

    @Nested
    class Pricing {
        static final String TYPE = "pricing";

        @Test
        void fills_missing_prices_from_the_usd_list_in_the_order_currency() {
            given(TYPE).order("{\"currency\": \"EUR\", \"lines\": [{\"sku\": \"WIDGET-1\", \"qty\": 2}]}")
                    .whenExecuted().finishesOn(null)
                    .order("subtotal", "23.00").order("fxRate", "0.92")
                    .output("pricedFromList", "[\"WIDGET-1\"]");
        }

        @Test
        void a_given_price_is_kept_as_money_and_qty_defaults_to_one() {
            given(TYPE).order("{\"lines\": [{\"sku\": \"CUSTOM-9\", \"unitPrice\": 19.5}]}")
                    .whenExecuted().finishesOn(null)
                    .order("subtotal", "19.50").output("pricedFromList", "[]")
                    .summary("Subtotal 19.50 USD");
        }

        @Test
        void a_sku_without_a_price_fails_the_run() {
            given(TYPE).order("{\"lines\": [{\"sku\": \"NOPE-1\", \"qty\": 1}]}")
                    .whenExecuted().failsTheRun("No price for SKU NOPE-1 in the price list");
        }
    }

    @Nested
    class Tax {
        static final String TYPE = "tax";

        @Test
        void sets_tax_total_and_the_usd_base_total() {
            given(TYPE).order("{\"currency\": \"USD\", \"subtotal\": 100.00}").settings("{\"rate\": 0.19}")
                    .whenExecuted().finishesOn(null)
                    .order("tax", "19.00").order("total", "119.00").order("baseTotal", "119.00")
                    .order("fxRate", "1");
        }

        @Test
        void without_a_rate_the_tax_is_zero_and_a_missing_subtotal_is_summed_from_the_lines() {
            given(TYPE).order("{\"lines\": [{\"unitPrice\": 2.50, \"qty\": 4}, {\"unitPrice\": 1.25}]}")
                    .whenExecuted().finishesOn(null)
                    .order("subtotal", "11.25").order("tax", "0").order("total", "11.25");
        }
    }

    @Nested
    class Policy {
        static final String TYPE = "policy";

        @Test
        void an_order_within_every_rule_passes() {
            given(TYPE).order("{\"total\": 400, \"baseTotal\": 400, \"meta\": {\"shipTo\": \"1 Main St\"}}")
                    .settings("{\"rules\": [{\"rule\": \"no_po_box\"}, {\"rule\": \"max_total\", \"limit\": 500}]}")
                    .whenExecuted().finishesOn("pass").output("passed", "true").output("violations", "[]")
                    .summary("All policy rules passed");
        }

        @Test
        void a_total_above_the_limit_fails_in_the_order_currency() {
            given(TYPE).order("{\"total\": 600, \"currency\": \"EUR\"}")
                    .settings("{\"rules\": [{\"rule\": \"max_total\", \"limit\": 500}]}")
                    .whenExecuted().finishesOn("fail").output("passed", "false")
                    .summary("Order total above 500 EUR");
        }

        @Test
        void credit_used_plus_the_base_total_above_the_limit_fails() {
            given(TYPE).order("{\"total\": 900, \"baseTotal\": 900}").vars("{\"creditUsed\": 200}")
                    .settings("{\"rules\": [{\"rule\": \"credit_limit\", \"limit\": 1000}]}")
                    .whenExecuted().finishesOn("fail").summary("Credit limit of 1000 USD exceeded");
        }

        @Test
        void an_unknown_rule_fails_the_run() {
            given(TYPE).settings("{\"rules\": [{\"rule\": \"lucky_day\"}]}")
                    .whenExecuted().failsTheRun("Unknown policy rule lucky_day");
        }
    }

    @Nested
    class ReserveStock {
        static final String TYPE = "reserve_stock";

        @Test
        void holds_stock_for_every_line() {
            given(TYPE).order("{\"lines\": [{\"sku\": \"WIDGET-1\", \"qty\": 2}, {\"sku\": \"GADGET-1\"}]}")
                    .whenExecuted().finishesOn("ok").output("holdId", "\"" + ref("hold") + "\"")
                    .openHolds("stock:" + ref("hold"));
        }

        @Test
        void out_of_stock_holds_nothing_and_names_every_short_sku() {
            given(TYPE).order("{\"lines\": [{\"sku\": \"WIDGET-1\", \"qty\": 2}]}").simulate("out_of_stock")
                    .whenExecuted().finishesOn("out_of_stock").output("shortSkus", "[\"WIDGET-1\"]")
                    .holdsUnchanged();
        }

        @Test
        void a_rollback_releases_the_nodes_hold_and_only_it() {
            given(TYPE).holding("stock", "hold-1", "n").holding("stock", "hold-2", "other")
                    .whenCompensated("{\"holdId\": \"hold-1\"}").undone().openHolds("stock:hold-2");
        }

        @Test
        void a_release_that_fails_cannot_be_undone() {
            given(TYPE).simulate("compensation_failed").holding("stock", "hold-1", "n")
                    .whenCompensated("{\"holdId\": \"hold-1\"}")
                    .cannotBeUndone("Could not release stock hold hold-1 (simulated compensation_failed)");
        }
    }

    @Nested
    class Approval {
        static final String TYPE = "approval";

        @Test
        void opens_an_approval_wait_with_the_contracts_defaults() {
            NodeOutcome.Wait wait = given(TYPE).order("{\"total\": 250}").title("Manager sign-off")
                    .whenExecuted().waits();
            assertThat(wait.kind()).isEqualTo("approval");
            assertThat(wait.title()).isEqualTo("Approve order " + NodeScenario.ORDER);
            assertThat(wait.assignee()).isEqualTo("manager");
            assertThat(wait.amount()).isEqualByComparingTo("250");
            assertThat(wait.timeout()).isEqualTo(Duration.ofDays(2));
        }

        @Test
        void settings_give_the_title_template_assignee_and_timeout() {
            NodeOutcome.Wait wait = given(TYPE)
                    .settings("{\"title\": \"Sign {{order.id}}\", \"assignee\": \"finance\", \"timeout\": \"4h\"}")
                    .whenExecuted().waits();
            assertThat(wait.title()).isEqualTo("Sign " + NodeScenario.ORDER);
            assertThat(wait.assignee()).isEqualTo("finance");
            assertThat(wait.timeout()).isEqualTo(Duration.ofHours(4));
        }

        @Test
        void a_decision_resumes_on_its_branch_with_the_payload_as_output() {
            String decision = "{\"decision\": \"approved\", \"by\": \"dana\", \"note\": \"fine\"}";
            given(TYPE).whenResumed("approved", decision).finishesOn("approved")
                    .output("by", "\"dana\"").output("note", "\"fine\"").summary("Approved by dana");
            given(TYPE).whenResumed("rejected", "{\"decision\": \"rejected\", \"by\": \"token:ci\"}")
                    .finishesOn("rejected").summary("Rejected by token:ci");
        }

        @Test
        void nobody_deciding_before_the_timeout_escalates() {
            given(TYPE).whenResumed("escalated", "{\"by\": \"timeout\"}").finishesOn("escalated")
                    .summary("Escalated: nobody decided before the timeout");
        }
    }

    @Nested
    class WaitForEvent {
        static final String TYPE = "wait_for_event";

        @Test
        void waits_for_the_named_event_with_the_nodes_title() {
            NodeOutcome.Wait wait = given(TYPE).settings("{\"event\": \"return.requested\", \"timeout\": \"7d\"}")
                    .title("Await {{order.id}}").whenExecuted().waits();
            assertThat(wait.kind()).isEqualTo("event");
            assertThat(wait.event()).isEqualTo("return.requested");
            assertThat(wait.title()).isEqualTo("Await " + NodeScenario.ORDER);
            assertThat(wait.timeout()).isEqualTo(Duration.ofDays(7));
        }

        @Test
        void without_settings_it_waits_thirty_days_for_payment_received() {
            NodeOutcome.Wait wait = given(TYPE).whenExecuted().waits();
            assertThat(wait.event()).isEqualTo("payment.received");
            assertThat(wait.title()).isEqualTo("Wait for payment.received");
            assertThat(wait.timeout()).isEqualTo(Duration.ofDays(30));
        }

        @Test
        void a_received_payload_is_the_output_and_lands_in_vars_under_the_event_name() {
            given(TYPE).settings("{\"event\": \"return.requested\"}")
                    .whenResumed("received", "{\"reason\": \"damaged\"}").finishesOn("received")
                    .output("reason", "\"damaged\"").vars("return_requested", "{\"reason\": \"damaged\"}")
                    .summary("Received return.requested");
        }

        @Test
        void a_timeout_takes_the_timeout_branch_and_stores_nothing() {
            given(TYPE).whenResumed("timeout", null).finishesOn("timeout")
                    .noVar("payment_received").summary("Timed out waiting for payment.received");
        }
    }

    @Nested
    class ControlWait {
        static final String TYPE = "control.wait";

        @Test
        void sleeps_the_duration_divided_by_the_time_scale() {
            NodeOutcome.Sleep sleep = given(TYPE).settings("{\"duration\": \"2h\"}").timeScale(60)
                    .whenExecuted().sleeps();
            assertThat(sleep.millis()).isEqualTo(120_000);
            assertThat(sleep.done().branch()).isNull();
            assertThat(sleep.done().summary()).isEqualTo("Waited 2h (120000 ms scaled)");
        }

        @Test
        void defaults_to_one_day_never_sleeps_below_a_second_and_is_not_timed() {
            assertThat(given(TYPE).timeScale(1440).whenExecuted().sleeps().millis()).isEqualTo(60_000);
            assertThat(given(TYPE).settings("{\"duration\": \"10s\"}").timeScale(1440).whenExecuted().sleeps()
                    .millis()).isEqualTo(1_000);
            assertThat(new ControlWaitNode().timed()).isFalse();
        }
    }

    @Nested
    class Condition {
        static final String TYPE = "condition";

        @Test
        void branches_on_the_expression_over_the_order() {
            given(TYPE).order("{\"total\": 1500}").settings("{\"expression\": \"order.total > 1000\"}")
                    .whenExecuted().finishesOn("true").output("result", "true");
            given(TYPE).order("{\"total\": 500}").settings("{\"expression\": \"order.total > 1000\"}")
                    .whenExecuted().finishesOn("false");
        }

        @Test
        void increment_adds_one_to_the_counter_before_evaluating() {
            given(TYPE).vars("{\"renewals\": 2}")
                    .settings("{\"expression\": \"vars.renewals < 3\", \"increment\": \"renewals\"}")
                    .whenExecuted().finishesOn("false").vars("renewals", "3");
            given(TYPE).settings("{\"expression\": \"vars.renewals < 3\", \"increment\": \"renewals\"}")
                    .whenExecuted().finishesOn("true").vars("renewals", "1");
        }

        @Test
        void a_missing_expression_fails_the_run() {
            given(TYPE).whenExecuted().failsTheRun("Condition node n has no expression");
        }

        @Test
        void an_expression_that_cannot_be_evaluated_fails_the_run() {
            NodeScenario.Then then = given(TYPE).settings("{\"expression\": \"T(java.lang.System).exit(0)\"}")
                    .whenExecuted();
            then.failsTheRunWith("Condition 'T(java.lang.System).exit(0)' could not be evaluated: ");
        }
    }

    @Nested
    class CapturePayment {
        static final String TYPE = "commerce.capture_payment";

        @Test
        void authorizes_and_captures_the_total_and_sends_order_paid() {
            given(TYPE).order("{\"total\": 40, \"currency\": \"EUR\"}")
                    .whenExecuted().finishesOn("ok").output("amount", "40").output("captured", "true")
                    .output("authorizationId", "\"" + ref("auth") + "\"")
                    .output("paymentId", "\"" + ref("pay") + "\"").summary("Captured 40.00 EUR")
                    .sends("order.paid").openHolds();
        }

        @Test
        void captures_an_authorization_the_order_already_holds() {
            given(TYPE).order("{\"total\": 40}").holding("authorization", "auth-9", "authorize")
                    .whenExecuted().finishesOn("ok").output("authorizationId", "\"auth-9\"")
                    .output("captured", "true").openHolds();
        }

        @Test
        void authorize_only_holds_the_authorization_and_still_sends_order_paid() {
            given(TYPE).order("{\"total\": 40}").settings("{\"authorizeOnly\": true}")
                    .whenExecuted().finishesOn("ok").output("captured", "false")
                    .summary("Authorized 40.00 USD").sends("order.paid")
                    .openHolds("authorization:" + ref("auth"));
        }

        @Test
        void a_declined_authorization_takes_the_declined_branch_and_sends_nothing() {
            given(TYPE).order("{\"total\": 40}").simulate("payment_declined")
                    .whenExecuted().finishesOn("declined").output("declined", "true")
                    .summary("Card declined (simulated payment_declined)").sends(null).openHolds();
        }

        @Test
        void payment_declined_does_not_affect_capturing_a_held_authorization() {
            given(TYPE).order("{\"total\": 40}").simulate("payment_declined")
                    .holding("authorization", "auth-9", "authorize")
                    .whenExecuted().finishesOn("ok").output("captured", "true");
        }

        @Test
        void a_rollback_refunds_a_capture_and_voids_an_open_authorization() {
            given(TYPE).order("{\"total\": 40}").whenCompensated("{\"paymentId\": \"pay-1\"}").undone();
            given(TYPE).holding("authorization", "auth-1", "n")
                    .whenCompensated("{\"authorizationId\": \"auth-1\", \"captured\": false}").undone().openHolds();
        }

        @Test
        void a_refund_the_processor_rejects_cannot_be_undone() {
            given(TYPE).order("{\"total\": 40}").simulate("refund_failed")
                    .whenCompensated("{\"paymentId\": \"pay-1\"}")
                    .cannotBeUndone("Refund rejected by the processor (simulated refund_failed)");
        }
    }

    @Nested
    class Charge {
        static final String TYPE = "commerce.charge";

        @Test
        void charges_the_total_in_one_step_and_sends_order_paid() {
            given(TYPE).order("{\"subtotal\": 25}")
                    .whenExecuted().finishesOn("ok").output("amount", "25")
                    .output("paymentId", "\"" + ref("pay") + "\"").summary("Charged 25.00 USD")
                    .sends("order.paid").openHolds();
        }

        @Test
        void a_declined_card_takes_the_declined_branch() {
            given(TYPE).order("{\"total\": 25}").simulate("payment_declined")
                    .whenExecuted().finishesOn("declined").output("message",
                            "\"Card declined (simulated payment_declined)\"").sends(null);
        }

        @Test
        void a_rollback_refunds_the_charge_unless_compensation_fails() {
            given(TYPE).order("{\"total\": 25}").whenCompensated("{\"paymentId\": \"pay-1\"}").undone();
            given(TYPE).order("{\"total\": 25}").simulate("compensation_failed")
                    .whenCompensated("{\"paymentId\": \"pay-1\"}")
                    .cannotBeUndone("Could not refund pay-1 (simulated compensation_failed)");
        }
    }

    @Nested
    class Invoice {
        static final String TYPE = "commerce.invoice";

        @Test
        void issues_an_invoice_for_the_total_due_in_thirty_days_and_sends_order_invoiced() {
            given(TYPE).order("{\"total\": 99.90, \"currency\": \"GBP\"}")
                    .whenExecuted().finishesOn(null).output("invoiceId", "\"" + ref("inv") + "\"")
                    .output("dueDays", "30").output("amount", "99.90").output("currency", "\"GBP\"")
                    .sends("order.invoiced");
        }

        @Test
        void due_days_is_a_setting() {
            given(TYPE).settings("{\"dueDays\": 14}").whenExecuted().finishesOn(null).output("dueDays", "14");
        }

        @Test
        void a_rollback_voids_the_invoice_unless_compensation_fails() {
            given(TYPE).whenCompensated("{\"invoiceId\": \"inv-1\"}").undone();
            given(TYPE).simulate("compensation_failed").whenCompensated("{\"invoiceId\": \"inv-1\"}")
                    .cannotBeUndone("Could not void invoice inv-1 (simulated compensation_failed)");
        }
    }

    @Nested
    class Ship {
        static final String TYPE = "commerce.ship";

        @Test
        void books_a_shipment_consumes_the_stock_holds_and_sends_order_shipped() {
            given(TYPE).order("{\"meta\": {\"shipTo\": \"1 Main St\"}}").holding("stock", "hold-1", "reserve")
                    .whenExecuted().finishesOn(null).output("shipmentId", "\"" + ref("shp") + "\"")
                    .output("carrier", "\"MockCarrier\"").sends("order.shipped")
                    .openHolds("shipment:" + ref("shp"));
        }

        @Test
        void a_carrier_that_is_down_throws_so_the_retry_policy_applies() {
            given(TYPE).simulate("carrier_down").holding("stock", "hold-1", "reserve")
                    .whenExecuted().throwsRetryable("Carrier unreachable (simulated carrier_down)").holdsUnchanged();
        }

        @Test
        void a_rollback_cancels_the_shipment() {
            given(TYPE).holding("shipment", "shp-1", "n").whenCompensated("{\"shipmentId\": \"shp-1\"}")
                    .undone().openHolds();
            given(TYPE).simulate("compensation_failed").holding("shipment", "shp-1", "n")
                    .whenCompensated("{\"shipmentId\": \"shp-1\"}")
                    .cannotBeUndone("Could not cancel shipment shp-1 (simulated compensation_failed)");
        }
    }

    @Nested
    class Refund {
        static final String TYPE = "commerce.refund";

        @Test
        void refunds_the_total_of_the_latest_payment_and_sends_order_refunded() {
            given(TYPE).order("{\"total\": 30}").completed("charge", "{\"paymentId\": \"pay-1\"}")
                    .completed("recharge", "{\"paymentId\": \"pay-2\"}")
                    .whenExecuted().finishesOn("ok").output("paymentId", "\"pay-2\"").output("amount", "30")
                    .output("refunded", "true").summary("Refunded 30.00 USD of pay-2").sends("order.refunded");
        }

        @Test
        void the_amount_is_a_setting() {
            given(TYPE).order("{\"total\": 30}").settings("{\"amount\": 10}")
                    .completed("charge", "{\"paymentId\": \"pay-1\"}")
                    .whenExecuted().finishesOn("ok").output("amount", "10");
        }

        @Test
        void a_refund_the_processor_rejects_takes_the_failed_branch() {
            given(TYPE).order("{\"total\": 30}").simulate("refund_failed")
                    .completed("charge", "{\"paymentId\": \"pay-1\"}")
                    .whenExecuted().finishesOn("failed").output("refunded", "false")
                    .summary("Refund rejected by the processor (simulated refund_failed)").sends(null);
        }

        @Test
        void without_a_payment_there_is_nothing_to_refund_and_the_run_fails() {
            given(TYPE).order("{\"total\": 30}").completed("capture", "{\"captured\": false}")
                    .whenExecuted().failsTheRun("Nothing to refund: no charge or capture of the order took a payment");
        }

        @Test
        void a_rollback_leaves_a_refund_as_it_is() {
            given(TYPE).whenCompensated("{\"refundId\": \"refund-1\"}").undone().holdsUnchanged();
        }
    }

    @Nested
    class End {
        static final String TYPE = "end";

        @Test
        void ends_the_run_completed_without_a_reason_by_default() {
            NodeOutcome.End end = given(TYPE).whenExecuted().ends();
            assertThat(end.outcome()).isEqualTo("completed");
            assertThat(end.reason()).isNull();
            assertThat(new EndNode().timed()).isFalse();
        }

        @Test
        void the_outcome_and_a_reason_template_are_settings() {
            NodeOutcome.End end = given(TYPE).completed("approve", "{\"by\": \"dana\"}")
                    .settings("{\"outcome\": \"declined\", \"reason\": \"Rejected by {{nodes.approve.by}} \"}")
                    .whenExecuted().ends();
            assertThat(end.outcome()).isEqualTo("declined");
            assertThat(end.reason()).isEqualTo("Rejected by dana");
        }

        @Test
        void an_unknown_outcome_fails_the_run() {
            given(TYPE).settings("{\"outcome\": \"lost\"}").whenExecuted()
                    .failsTheRun("End node n has unknown outcome lost");
        }
    }
}
