package io.orderflow.runner.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ArrayNode;

/** The order-line scanner reads what the documented line pattern reads, in time linear in the text. */
class OrderLineScannerTest {

    /**
     * The line grammar written as a pattern: the reference the scanner is checked against on short lines, where a
     * backtracking match is cheap. On long hostile lines it takes minutes, which is why the node does not use it.
     */
    private static final Pattern REFERENCE = Pattern.compile(
            "^\\s*(?:[-*•]\\s*)?(\\d+)\\s*(?:x|×|pcs?\\.?|units?)\\s+([A-Za-z0-9][A-Za-z0-9_-]*)"
                    + "(?:\\s+([^@]*?))?\\s*(?:@\\s*([0-9]+(?:\\.[0-9]+)?))?\\s*$");

    private static final String ALPHABET = "  \t1203x×pcs.unit@-*•Ab_Z9ö";

    @Test
    void readsWhatThePatternReadsOnTwoHundredThousandRandomLines() {
        Random random = new Random(20261126);
        for (int i = 0; i < 200_000; i++) {
            StringBuilder row = new StringBuilder();
            int length = random.nextInt(18);
            for (int c = 0; c < length; c++) {
                row.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            }
            String line = row.toString();
            assertThat(OrderLineScanner.scan(line)).as("line [%s]", line).isEqualTo(reference(line));
        }
    }

    @Test
    void readsTheDocumentedForms() {
        assertThat(OrderLineScanner.scan("- 12 x paper-a4 Copy paper @ 5.10"))
                .contains(new OrderLineScanner.Line(12, "paper-a4", "Copy paper", new BigDecimal("5.10")));
        assertThat(OrderLineScanner.scan("3 pcs. TONER-K")).contains(new OrderLineScanner.Line(3, "TONER-K", null,
                null));
        assertThat(OrderLineScanner.scan("• 2 × W-1@7")).contains(new OrderLineScanner.Line(2, "W-1", null,
                new BigDecimal("7")));
        assertThat(OrderLineScanner.scan("1 units A  big  name  ")).contains(new OrderLineScanner.Line(1, "A",
                "big  name", null));
        assertThat(OrderLineScanner.scan("Regards, Bob")).isEmpty();
        assertThat(OrderLineScanner.scan("2 x A @ 1.5 @ 2")).isEmpty();
        assertThat(OrderLineScanner.scan("12345678901 x A")).as("a quantity beyond an int").isEmpty();
    }

    static Stream<String> hostileTexts() {
        return Stream.of(
                "1 x A" + " ".repeat(49_990) + "@x",
                "1 x A " + "@".repeat(49_990),
                "1 x A " + " @".repeat(24_995),
                "9".repeat(50_000),
                "1 x " + "A".repeat(49_990) + " @",
                "1 x A" + " x".repeat(24_995) + "@",
                "1 x A " + "1.".repeat(24_995),
                "- ".repeat(25_000),
                ("1 x A" + " ".repeat(200) + "@x\n").repeat(240),
                "<div><span " + "a=\"".repeat(12_000) + "1 x A    @");
    }

    @ParameterizedTest
    @MethodSource("hostileTexts")
    void parsesFiftyThousandHostileCharactersInWellUnderASecond(String text) {
        // A generous bound: the backtracking pattern took minutes on the first of these texts.
        ArrayNode lines = assertTimeoutPreemptively(Duration.ofSeconds(1), () -> ExtractOrderNode.parse(text));
        assertThat(lines.size()).isLessThanOrEqualTo(240);
    }

    @Test
    void aLongLineOfSpacesBeforeAStrayMarkIsNoOrderLine() {
        assertThat(ExtractOrderNode.parse("1 x A" + " ".repeat(3_000) + "@x")).isEmpty();
        assertThat(ExtractOrderNode.parse("1 x A" + " ".repeat(3_000) + "@ 2.50")).hasSize(1);
    }

    private static Optional<OrderLineScanner.Line> reference(String line) {
        Matcher m = REFERENCE.matcher(line);
        if (!m.matches() || m.group(1).length() > 9) {
            return Optional.empty();
        }
        String name = m.group(3) == null || m.group(3).isBlank() ? null : m.group(3).strip();
        return Optional.of(new OrderLineScanner.Line(Integer.parseInt(m.group(1)), m.group(2), name,
                m.group(4) == null ? null : new BigDecimal(m.group(4))));
    }
}
