package io.orderflow.schemas.customers;

import java.util.List;

/**
 * A customer of the customer directory (the compacted {@code customers} topic, keyed by customer id). Email intake
 * allows a sender whose address is one of {@code emails}, or whose domain is one of {@code domains}.
 *
 * @param emails  the customer's own addresses, lower case
 * @param domains the company's mail domains, lower case, without {@code @}
 */
public record Customer(String id, String name, List<String> emails, List<String> domains) {

    public Customer {
        emails = emails == null ? List.of() : List.copyOf(emails);
        domains = domains == null ? List.of() : List.copyOf(domains);
    }
}
