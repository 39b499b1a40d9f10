package io.orderflow.intake;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code INTAKE_ALLOWLIST}: extra senders allowed to start orders by email, each an address ({@code a@b.com}) or a
 * whole domain ({@code @b.com}). A secret: {@link #toString()} never shows the entries.
 */
final class Allowlist {

    private final Set<String> addresses;
    private final Set<String> domains;

    private Allowlist(Set<String> addresses, Set<String> domains) {
        this.addresses = addresses;
        this.domains = domains;
    }

    static Allowlist parse(String setting) {
        Set<String> entries = Arrays.stream(setting == null ? new String[0] : setting.split(","))
                .map(s -> s.strip().toLowerCase(Locale.ROOT)).filter(s -> !s.isEmpty()).collect(Collectors.toSet());
        return new Allowlist(
                entries.stream().filter(e -> !e.startsWith("@")).collect(Collectors.toUnmodifiableSet()),
                entries.stream().filter(e -> e.startsWith("@")).map(e -> e.substring(1))
                        .collect(Collectors.toUnmodifiableSet()));
    }

    /** {@code address} is lower case. */
    boolean allows(String address) {
        return addresses.contains(address) || domains.contains(Addresses.domain(address));
    }

    @Override
    public String toString() {
        return "Allowlist[" + (addresses.size() + domains.size()) + " entries]";
    }
}
