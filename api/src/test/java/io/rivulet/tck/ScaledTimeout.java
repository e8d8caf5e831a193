package io.rivulet.tck;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;

/**
 * Like JUnit's {@code @Timeout}, but the limit is {@code value unit} × {@link TestTime#scale()}: a test, test
 * template, test factory or lifecycle method so annotated fails when it runs longer. On a class it applies to every
 * test method of the class and its {@code @Nested} classes, as {@code @Timeout} does; lifecycle methods keep the
 * default unless annotated themselves. JUnit registers no extension from a lifecycle method's annotations, so there
 * it takes effect where the extension is registered anyway: globally, as this build does (auto-detection), or by the
 * class.
 * <p>
 * Enforced by {@link ScaledTimeoutExtension} on the test's own thread: the thread is interrupted at the deadline
 * and the test fails once it returns, naming the scaled timeout, the base value and the factor.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(ScaledTimeoutExtension.class)
public @interface ScaledTimeout
{
    /** @return the timeout before scaling, a positive number of {@link #unit()}. */
    long value();

    /** @return the unit of {@link #value()}. */
    TimeUnit unit() default TimeUnit.SECONDS;
}
