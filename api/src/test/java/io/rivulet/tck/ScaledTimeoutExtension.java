package io.rivulet.tck;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.platform.commons.support.AnnotationSupport;

import java.lang.management.ManagementFactory;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Enforces {@link ScaledTimeout}: the way JUnit's {@code @Timeout} does in its {@code SAME_THREAD} mode, the test
 * thread is interrupted at the deadline, and once the invocation returns the test fails with a
 * {@link TimeoutException} naming the scaled timeout, the base value and the factor, for example
 * {@code shouldX() timed out after 600 s (60 s × rivulet.test.timeScale 10)}.
 * <p>
 * Which limit applies, in order: {@code @ScaledTimeout} on the method; JUnit's {@code @Timeout} on the method
 * (left to JUnit); for test methods, the innermost class, itself or enclosing, annotated with either; else the
 * default, {@value #DEFAULT_TIMEOUT_SECONDS} s (configuration parameter {@value #DEFAULT_TIMEOUT_PROPERTY}) scaled
 * as well. Registered globally (the api test-jar lists it for JUnit's extension auto-detection), it gives every
 * test without a timeout of its own that scaled default. Honours {@code junit.jupiter.execution.timeout.mode}.
 */
public final class ScaledTimeoutExtension implements InvocationInterceptor
{
    /** JUnit configuration parameter: the default timeout before scaling, as JUnit writes them: "120 s". */
    public static final String DEFAULT_TIMEOUT_PROPERTY = "rivulet.test.timeout.default";

    /** The default timeout before scaling, when {@value #DEFAULT_TIMEOUT_PROPERTY} is not set. */
    public static final long DEFAULT_TIMEOUT_SECONDS = 120;

    private static final String TIMEOUT_MODE_PROPERTY = "junit.jupiter.execution.timeout.mode";
    private static final Pattern DURATION = Pattern.compile("([1-9]\\d*) ?(ns|μs|us|ms|s|m|h|d)?");

    private static final ScheduledThreadPoolExecutor SCHEDULER = newScheduler();

    @Override
    public void interceptTestMethod(
        final Invocation<Void> invocation,
        final ReflectiveInvocationContext<Method> invocationContext,
        final ExtensionContext extensionContext) throws Throwable
    {
        proceed(invocation, invocationContext, extensionContext, true);
    }

    @Override
    public void interceptTestTemplateMethod(
        final Invocation<Void> invocation,
        final ReflectiveInvocationContext<Method> invocationContext,
        final ExtensionContext extensionContext) throws Throwable
    {
        proceed(invocation, invocationContext, extensionContext, true);
    }

    @Override
    public <T> T interceptTestFactoryMethod(
        final Invocation<T> invocation,
        final ReflectiveInvocationContext<Method> invocationContext,
        final ExtensionContext extensionContext) throws Throwable
    {
        return proceed(invocation, invocationContext, extensionContext, true);
    }

    @Override
    public void interceptBeforeAllMethod(
        final Invocation<Void> invocation,
        final ReflectiveInvocationContext<Method> invocationContext,
        final ExtensionContext extensionContext) throws Throwable
    {
        proceed(invocation, invocationContext, extensionContext, false);
    }

    @Override
    public void interceptBeforeEachMethod(
        final Invocation<Void> invocation,
        final ReflectiveInvocationContext<Method> invocationContext,
        final ExtensionContext extensionContext) throws Throwable
    {
        proceed(invocation, invocationContext, extensionContext, false);
    }

    @Override
    public void interceptAfterEachMethod(
        final Invocation<Void> invocation,
        final ReflectiveInvocationContext<Method> invocationContext,
        final ExtensionContext extensionContext) throws Throwable
    {
        proceed(invocation, invocationContext, extensionContext, false);
    }

    @Override
    public void interceptAfterAllMethod(
        final Invocation<Void> invocation,
        final ReflectiveInvocationContext<Method> invocationContext,
        final ExtensionContext extensionContext) throws Throwable
    {
        proceed(invocation, invocationContext, extensionContext, false);
    }

    private static <T> T proceed(
        final Invocation<T> invocation,
        final ReflectiveInvocationContext<Method> invocationContext,
        final ExtensionContext extensionContext,
        final boolean testable) throws Throwable
    {
        final Method method = invocationContext.getExecutable();
        final Limit limit = limitFor(method, extensionContext, testable);
        if (null == limit || timeoutsDisabled(extensionContext))
        {
            return invocation.proceed();
        }
        return proceedWithin(invocation, limit, signature(method));
    }

    /**
     * @return the limit that applies, or null where JUnit's own {@code @Timeout} decides.
     */
    static Limit limitFor(final Method method, final ExtensionContext context, final boolean testable)
    {
        final Optional<ScaledTimeout> onMethod = AnnotationSupport.findAnnotation(method, ScaledTimeout.class);
        if (onMethod.isPresent())
        {
            return Limit.of(onMethod.get(), method);
        }
        if (AnnotationSupport.isAnnotated(method, Timeout.class))
        {
            return null;
        }
        if (testable)
        {
            // As JUnit's @Timeout on a class: the innermost annotated class, from the test's own to its enclosing ones.
            for (Optional<ExtensionContext> c = Optional.of(context); c.isPresent(); c = c.get().getParent())
            {
                final Optional<AnnotatedElement> element = c.get().getElement();
                if (element.isPresent() && element.get() instanceof Class)
                {
                    final Class<?> testClass = (Class<?>)element.get();
                    final Optional<ScaledTimeout> onClass = AnnotationSupport.findAnnotation(testClass, ScaledTimeout.class);
                    if (onClass.isPresent())
                    {
                        return Limit.of(onClass.get(), testClass);
                    }
                    if (AnnotationSupport.isAnnotated(testClass, Timeout.class))
                    {
                        return null;
                    }
                }
            }
        }
        return context.getConfigurationParameter(DEFAULT_TIMEOUT_PROPERTY)
            .map(ScaledTimeoutExtension::parseDefault)
            .orElseGet(() -> new Limit(DEFAULT_TIMEOUT_SECONDS, TimeUnit.SECONDS));
    }

    static Limit parseDefault(final String text)
    {
        final Matcher matcher = DURATION.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!matcher.matches())
        {
            throw new ExtensionConfigurationException(
                DEFAULT_TIMEOUT_PROPERTY + " must be a positive whole number with an optional unit (ns, μs, ms, s, m, h, d)" +
                ", such as \"120 s\": '" + text + "'");
        }
        final long value = Long.parseLong(matcher.group(1));
        final String unit = null == matcher.group(2) ? "s" : matcher.group(2);
        switch (unit)
        {
            case "ns":
                return new Limit(value, TimeUnit.NANOSECONDS);
            case "μs":
            case "us":
                return new Limit(value, TimeUnit.MICROSECONDS);
            case "ms":
                return new Limit(value, TimeUnit.MILLISECONDS);
            case "m":
                return new Limit(value, TimeUnit.MINUTES);
            case "h":
                return new Limit(value, TimeUnit.HOURS);
            case "d":
                return new Limit(value, TimeUnit.DAYS);
            default:
                return new Limit(value, TimeUnit.SECONDS);
        }
    }

    private static boolean timeoutsDisabled(final ExtensionContext context)
    {
        final String mode = context.getConfigurationParameter(TIMEOUT_MODE_PROPERTY).orElse("enabled")
            .strip().toLowerCase(Locale.ROOT);
        switch (mode)
        {
            case "disabled":
                return true;
            case "disabled_on_debug":
                return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                    .anyMatch(arg -> arg.startsWith("-agentlib:jdwp") || arg.startsWith("-Xrunjdwp"));
            default:
                return false;
        }
    }

    private static <T> T proceedWithin(final Invocation<T> invocation, final Limit limit, final String name)
        throws Throwable
    {
        final InterruptTask interrupt = new InterruptTask(Thread.currentThread());
        final ScheduledFuture<?> future = SCHEDULER.schedule(interrupt, limit.scaledNanos(), TimeUnit.NANOSECONDS);
        T result = null;
        Throwable failure = null;
        try
        {
            result = invocation.proceed();
        }
        catch (final Throwable ex)
        {
            failure = ex;
        }
        finally
        {
            if (interrupt.disarm())
            {
                future.cancel(false);
            }
            else
            {
                // It fired: wait until its interrupt has landed, then clear it so that it cannot reach the next test.
                interrupt.awaitFired();
                Thread.interrupted();
                final TimeoutException timeout = new TimeoutException(limit.describe(name, TestTime.scale()));
                timeout.addSuppressed(interrupt.stackAtTimeout());
                if (null != failure)
                {
                    timeout.addSuppressed(failure);
                }
                failure = timeout;
            }
        }
        if (null != failure)
        {
            throw failure;
        }
        return result;
    }

    private static String signature(final Method method)
    {
        return method.getName() + Arrays.stream(method.getParameterTypes())
            .map(Class::getSimpleName)
            .collect(Collectors.joining(", ", "(", ")"));
    }

    private static ScheduledThreadPoolExecutor newScheduler()
    {
        final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, runnable ->
        {
            final Thread thread = new Thread(runnable, "rivulet-scaled-timeout");
            thread.setDaemon(true);
            return thread;
        });
        // Nearly every timeout is disarmed: do not keep the cancelled ones queued until their deadline.
        scheduler.setRemoveOnCancelPolicy(true);
        return scheduler;
    }

    /**
     * A timeout before scaling.
     */
    static final class Limit
    {
        private final long value;
        private final TimeUnit unit;

        Limit(final long value, final TimeUnit unit)
        {
            this.value = value;
            this.unit = unit;
        }

        static Limit of(final ScaledTimeout annotation, final AnnotatedElement where)
        {
            if (annotation.value() <= 0)
            {
                throw new ExtensionConfigurationException(
                    "@ScaledTimeout must be positive: " + annotation.value() + " on " + where);
            }
            return new Limit(annotation.value(), annotation.unit());
        }

        long value()
        {
            return value;
        }

        TimeUnit unit()
        {
            return unit;
        }

        long scaledNanos()
        {
            return TestTime.nanos(value, unit);
        }

        /** @return for example {@code shouldX() timed out after 600 s (60 s × rivulet.test.timeScale 10)}. */
        String describe(final String name, final double factor)
        {
            final BigDecimal scale = BigDecimal.valueOf(factor);
            final String symbol = symbol(unit);
            return name + " timed out after " + plain(BigDecimal.valueOf(value).multiply(scale)) + " " + symbol +
                " (" + value + " " + symbol + " × " + TestTime.SCALE_PROPERTY + " " + plain(scale) + ")";
        }

        private static String plain(final BigDecimal number)
        {
            return number.stripTrailingZeros().toPlainString();
        }

        private static String symbol(final TimeUnit unit)
        {
            switch (unit)
            {
                case NANOSECONDS:
                    return "ns";
                case MICROSECONDS:
                    return "μs";
                case MILLISECONDS:
                    return "ms";
                case SECONDS:
                    return "s";
                case MINUTES:
                    return "min";
                case HOURS:
                    return "h";
                default:
                    return "d";
            }
        }
    }

    /**
     * Interrupts the test thread at the deadline unless the test disarmed it first: one of the two wins, so an
     * interrupt never lands after the test has been told it finished in time.
     */
    private static final class InterruptTask implements Runnable
    {
        private static final int ARMED = 0;
        private static final int DISARMED = 1;
        private static final int FIRING = 2;
        private static final int FIRED = 3;

        private final Thread thread;
        private final AtomicInteger state = new AtomicInteger(ARMED);
        private volatile StackTraceElement[] stack = new StackTraceElement[0];

        InterruptTask(final Thread thread)
        {
            this.thread = thread;
        }

        @Override
        public void run()
        {
            if (state.compareAndSet(ARMED, FIRING))
            {
                stack = thread.getStackTrace();
                thread.interrupt();
                state.set(FIRED);
            }
        }

        boolean disarm()
        {
            return state.compareAndSet(ARMED, DISARMED);
        }

        void awaitFired()
        {
            while (state.get() != FIRED)
            {
                Thread.onSpinWait();
            }
        }

        /** @return where the test thread was when the deadline passed: usually where it was stuck. */
        Throwable stackAtTimeout()
        {
            final Exception where = new Exception("stack of " + thread.getName() + " at the timeout");
            where.setStackTrace(stack);
            return where;
        }
    }
}
