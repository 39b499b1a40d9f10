package io.orderflow.standalone.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A {@code stat} file of Linux's {@code /proc}: a process's ({@code /proc/<pid>/stat}) or one of its threads'
 * ({@code /proc/<pid>/task/<tid>/stat}). Fields are numbered as {@code man 5 proc} numbers them.
 */
public final class ProcStat {

    private ProcStat() {
    }

    /** User plus system time: fields 14 and 15, in clock ticks of 1/100 s. */
    public static long cpuTicks(Path statFile) throws IOException {
        String[] fields = fieldsFromState(statFile);
        return Long.parseLong(fields[14 - 3]) + Long.parseLong(fields[15 - 3]);
    }

    /** The nice value: field 19. */
    public static int nice(Path statFile) throws IOException {
        return Integer.parseInt(fieldsFromState(statFile)[19 - 3]);
    }

    /**
     * The fields from the third (state) on. The second, the name in parentheses, may itself hold spaces and
     * parentheses, so the line is cut after its last closing parenthesis.
     */
    private static String[] fieldsFromState(Path statFile) throws IOException {
        String stat = Files.readString(statFile);
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }
}
