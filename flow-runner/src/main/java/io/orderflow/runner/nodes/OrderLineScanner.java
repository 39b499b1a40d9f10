package io.orderflow.runner.nodes;

import java.math.BigDecimal;
import java.util.Optional;

/**
 * Reads one text line as an order line, in one pass over it: {@code [bullet] QTY UNIT SKU [name] [@ PRICE]}, where
 * the bullet is {@code -}, {@code *} or {@code •}, the unit {@code x}, {@code ×}, {@code pc}, {@code pcs},
 * {@code pc.}, {@code pcs.}, {@code unit} or {@code units}, the SKU a letter or digit followed by letters, digits,
 * {@code _} and {@code -}, the name anything but {@code @}, and the price digits with an optional decimal part.
 *
 * <p>A hand-written scanner rather than a pattern: the text comes from strangers (a start request's
 * {@code documentText}, a mail), and a backtracking pattern over a line of spaces between the SKU and a stray
 * {@code @} took time cubic in the line's length. Here every character is looked at a bounded number of times.
 */
final class OrderLineScanner {

    /** Quantities of more digits than this are not order lines (and would not fit an {@code int}). */
    private static final int MAX_QTY_DIGITS = 9;

    /** One parsed line; {@code name} and {@code unitPrice} may be null. */
    record Line(int qty, String sku, String name, BigDecimal unitPrice) {
    }

    private final String row;
    private int at;

    private OrderLineScanner(String row) {
        this.row = row;
    }

    /** The order line {@code row} holds, or empty when it does not read as one. */
    static Optional<Line> scan(String row) {
        return Optional.ofNullable(new OrderLineScanner(row).line());
    }

    private Line line() {
        skipSpace();
        if (at < row.length() && "-*•".indexOf(row.charAt(at)) >= 0) {
            at++;
            skipSpace();
        }
        int qtyStart = at;
        while (at < row.length() && isDigit(row.charAt(at))) {
            at++;
        }
        if (at == qtyStart || at - qtyStart > MAX_QTY_DIGITS) {
            return null;
        }
        int qty = Integer.parseInt(row, qtyStart, at, 10);
        skipSpace();
        if (!unit() || skipSpace() == 0) {
            return null;
        }
        int skuStart = at;
        if (at >= row.length() || !isSkuStart(row.charAt(at))) {
            return null;
        }
        while (at < row.length() && isSkuPart(row.charAt(at))) {
            at++;
        }
        String sku = row.substring(skuStart, at);
        return rest(qty, sku);
    }

    /** After the SKU: nothing, or whitespace and a name, then an optional price, each part without {@code @}. */
    private Line rest(int qty, String sku) {
        int priceMark = row.indexOf('@', at);
        int nameEnd = priceMark < 0 ? row.length() : priceMark;
        String name = row.substring(at, nameEnd);
        if (!name.isEmpty() && !isSpace(name.charAt(0)) && priceMark != at) {
            return null; // the SKU runs into something that is neither a name, a price nor the end
        }
        BigDecimal price = null;
        if (priceMark >= 0) {
            at = priceMark + 1;
            price = price();
            if (price == null) {
                return null;
            }
        }
        String stripped = name.strip();
        return new Line(qty, sku, stripped.isEmpty() ? null : stripped, price);
    }

    /** {@code PRICE} after the {@code @}, followed by nothing but whitespace; null otherwise. */
    private BigDecimal price() {
        skipSpace();
        int start = at;
        while (at < row.length() && isDigit(row.charAt(at))) {
            at++;
        }
        if (at == start) {
            return null;
        }
        if (at < row.length() && row.charAt(at) == '.') {
            int fraction = ++at;
            while (at < row.length() && isDigit(row.charAt(at))) {
                at++;
            }
            if (at == fraction) {
                return null;
            }
        }
        int end = at;
        skipSpace();
        return at == row.length() ? new BigDecimal(row.substring(start, end)) : null;
    }

    /** Consumes one unit word; false when none is at the cursor. */
    private boolean unit() {
        if (at >= row.length()) {
            return false;
        }
        char c = row.charAt(at);
        if (c == 'x' || c == '×') {
            at++;
            return true;
        }
        if (row.startsWith("unit", at)) {
            at += row.startsWith("units", at) ? 5 : 4;
            return true;
        }
        if (row.startsWith("pc", at)) {
            at += row.startsWith("pcs", at) ? 3 : 2;
            if (at < row.length() && row.charAt(at) == '.') {
                at++;
            }
            return true;
        }
        return false;
    }

    /** Skips whitespace; returns how much. */
    private int skipSpace() {
        int start = at;
        while (at < row.length() && isSpace(row.charAt(at))) {
            at++;
        }
        return at - start;
    }

    /** What {@code \s} matches: space, tab, line breaks, vertical tab and form feed. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isSkuStart(char c) {
        return isDigit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }

    private static boolean isSkuPart(char c) {
        return isSkuStart(c) || c == '_' || c == '-';
    }
}
