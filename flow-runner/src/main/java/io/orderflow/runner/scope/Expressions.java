package io.orderflow.runner.scope;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.DataBindingPropertyAccessor;
import org.springframework.expression.spel.support.MapAccessor;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * Evaluates condition expressions with Spring SpEL in a {@link SimpleEvaluationContext}: property and index access on
 * the run scope (maps and lists), comparisons, arithmetic and boolean logic; no type references, constructors,
 * bean references or method calls on arbitrary classes, so a flow author cannot reach the JVM.
 */
public final class Expressions {

    private static final ExpressionParser PARSER = new SpelExpressionParser();
    private static final Map<String, Expression> CACHE = new ConcurrentHashMap<>();

    private Expressions() {
    }

    /** Parses {@code expression}; throws {@link IllegalArgumentException} with the parser's message when malformed. */
    public static Expression parse(String expression) {
        try {
            return CACHE.computeIfAbsent(expression, PARSER::parseExpression);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("Invalid expression '" + expression + "': " + e.getMessage(), e);
        }
    }

    /** Evaluates {@code expression} as a boolean against the scope ({@code order}, {@code vars}, {@code nodes}, {@code input}). */
    public static boolean test(String expression, Map<String, Object> scope) {
        EvaluationContext context = SimpleEvaluationContext
                .forPropertyAccessors(new MapAccessor(false), DataBindingPropertyAccessor.forReadOnlyAccess())
                .withRootObject(scope)
                .build();
        Boolean value = parse(expression).getValue(context, Boolean.class);
        return Boolean.TRUE.equals(value);
    }
}
