package io.orderflow.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The intake settings as an operator writes them in the environment. */
class IntakePropertiesTest {

    private static IntakeProperties of(String mailboxes, String allowlist) {
        return new IntakeProperties(mailboxes, null, null, allowlist, null, null, null, null, null, null, null, null,
                null, null, null, null);
    }

    @Test
    void empty_mailboxes_map_orders_and_sales_to_the_b2b_flow_and_purchasing_to_purchase_requests() {
        assertThat(of("", null).mailboxMap()).containsExactly(Map.entry("orders", "b2b_order"),
                Map.entry("sales", "b2b_order"), Map.entry("purchasing", "purchase_request"));
    }

    @Test
    void a_json_object_replaces_the_default_mailboxes() {
        assertThat(of("{\"Reorders\": \"reorder\", \"shop\": \"storefront_order\"}", null).mailboxMap())
                .containsExactly(Map.entry("reorders", "reorder"), Map.entry("shop", "storefront_order"));
    }

    @Test
    void malformed_mailboxes_fail_at_start_with_what_is_expected() {
        assertThatThrownBy(() -> of("orders=b2b_order", null))
                .hasMessageStartingWith("INTAKE_MAILBOXES is not a JSON object");
        assertThatThrownBy(() -> of("{\"orders\": 3}", null))
                .hasMessage("INTAKE_MAILBOXES: mailbox orders must map to a flow id");
    }

    @Test
    void defaults_follow_the_spec_auth_and_reply_on_and_no_listener() {
        IntakeProperties settings = of(null, null);
        assertThat(settings.requireAuth()).isTrue();
        assertThat(settings.reply()).isTrue();
        assertThat(settings.listenerPort()).isEmpty();
        assertThat(settings.trustedAuthservId()).isEqualTo("mx.orderflow.local");
    }

    @Test
    void trusted_relays_are_addresses_or_cidrs_and_anything_else_fails_at_start() {
        TrustedRelays relays = TrustedRelays.parse(List.of("10.0.0.0/24", "192.0.2.7", "::1"));

        assertThat(relays.trusts(new InetSocketAddress("10.0.0.200", 25))).isTrue();
        assertThat(relays.trusts(new InetSocketAddress("10.0.1.1", 25))).isFalse();
        assertThat(relays.trusts(new InetSocketAddress("192.0.2.7", 25))).isTrue();
        assertThat(relays.trusts(new InetSocketAddress("192.0.2.8", 25))).isFalse();
        assertThat(relays.trusts(new InetSocketAddress("::1", 25))).isTrue();
        assertThat(TrustedRelays.parse(List.of()).trusts(new InetSocketAddress("127.0.0.1", 25))).isFalse();
        for (String bad : List.of("mx.example.com", "10.0.0.0/33", "10.0.0", "*")) {
            assertThatThrownBy(() -> new IntakeProperties(null, null, null, null, null, null, List.of(bad), null,
                    null, null, null, null, null, null, null, null)).as(bad)
                    .hasMessage("INTAKE_TRUSTED_RELAYS: " + bad
                            + " is not an IP address or a CIDR such as 10.0.0.0/24");
        }
    }

    @Test
    void the_allowlist_is_a_secret_and_never_shows_in_to_string() {
        IntakeProperties settings = of(null, "boss@secret-partner.example, @hidden.example");

        assertThat(settings.toString()).contains("allowlist=(set)").doesNotContain("secret-partner")
                .doesNotContain("hidden.example");
        assertThat(Allowlist.parse(settings.allowlist()).toString()).isEqualTo("Allowlist[2 entries]");
    }

    @Test
    void the_allowlist_matches_whole_addresses_and_whole_domains_only() {
        Allowlist allowlist = Allowlist.parse(" Boss@Partner.example ,@friends.example,,");

        assertThat(allowlist.allows("boss@partner.example")).isTrue();
        assertThat(allowlist.allows("anyone@friends.example")).isTrue();
        assertThat(allowlist.allows("other@partner.example")).isFalse();
        assertThat(allowlist.allows("anyone@notfriends.example")).isFalse();
        assertThat(allowlist.allows("anyone@sub.friends.example")).isFalse();
    }
}
