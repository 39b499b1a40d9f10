package io.orderflow.schemas.model;

import tools.jackson.databind.JsonNode;

/**
 * One message of an order's ops chat, as the order's live state shows it in {@code chat} (only the last 100 are
 * kept). Written by the gateway's chat loop through the order's agent; every socket on the order sees it.
 *
 * @param id       the message id, chosen by the gateway ({@code msg_...})
 * @param at       epoch milliseconds; the agent stamps the time it appended the message
 * @param role     {@code user}, {@code assistant} or {@code tool}
 * @param text     what the message says
 * @param by       a user message: the identity of the person (or token) who wrote it; a tool message: the identity
 *                 of the person whose message the tool ran for
 * @param tool     a tool message: the tool that ran ({@code get_state}, {@code approve}, ...)
 * @param args     a tool message: the arguments it ran with
 * @param proposal a tool message of {@code approve}, {@code reject} or {@code cancel}: what a person may confirm
 */
public record ChatMessage(String id, long at, String role, String text, String by, String tool, JsonNode args,
                          Proposal proposal) {

    public static final String USER = "user";
    public static final String ASSISTANT = "assistant";
    public static final String TOOL = "tool";

    /** A copy stamped with the time the agent appended it. */
    public ChatMessage at(long when) {
        return new ChatMessage(id, when, role, text, by, tool, args, proposal);
    }

    /** A copy with its proposal replaced. */
    public ChatMessage withProposal(Proposal next) {
        return new ChatMessage(id, at, role, text, by, tool, args, next);
    }

    /**
     * What the chat proposes and a person confirms on the order page (after the page's 5-second undo) by calling the
     * ordinary {@code decide} or {@code cancel} method with the proposal's id.
     *
     * @param kind     {@code decide} or {@code cancel}
     * @param nodeId   {@code decide}: the approval node
     * @param decision {@code decide}: {@code approved} or {@code rejected}
     * @param reason   {@code cancel}: the reason to cancel with
     * @param status   {@code open} until confirmed, then {@code confirmed}
     */
    public record Proposal(String id, String kind, String nodeId, String decision, String reason, String status) {

        public static final String DECIDE = "decide";
        public static final String CANCEL = "cancel";
        public static final String OPEN = "open";
        public static final String CONFIRMED = "confirmed";

        public boolean open() {
            return OPEN.equals(status);
        }

        public Proposal confirmed() {
            return new Proposal(id, kind, nodeId, decision, reason, CONFIRMED);
        }
    }
}
