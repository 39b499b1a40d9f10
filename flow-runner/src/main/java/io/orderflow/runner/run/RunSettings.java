package io.orderflow.runner.run;

/**
 * Engine limits.
 *
 * @param timeScale    divides {@code control.wait} sleeps (never below one second)
 * @param maxSteps     node executions per instance before the run continues as a new instance
 * @param stepsPerTask node executions per task before the rest is handed on as an {@code Advance} task
 */
public record RunSettings(long timeScale, long maxSteps, int stepsPerTask) {

    public static final RunSettings DEFAULTS = new RunSettings(1440, 10_000, 50);
}
