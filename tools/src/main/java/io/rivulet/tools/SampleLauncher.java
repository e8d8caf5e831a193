package io.rivulet.tools;

import java.util.ArrayList;
import java.util.List;

/** Hands a command's arguments to a sample's {@code main}, which parses them itself and may exit the JVM. */
final class SampleLauncher
{
    private SampleLauncher()
    {
    }

    /** A sample's entry point. */
    @FunctionalInterface
    interface Main
    {
        void main(String[] args) throws Exception;
    }

    static int run(final Main main, final List<String> args) throws Exception
    {
        main.main(new ArrayList<>(args == null ? List.of() : args).toArray(new String[0]));
        return 0;
    }
}
