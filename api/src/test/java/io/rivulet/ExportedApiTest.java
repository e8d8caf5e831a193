package io.rivulet;

import io.rivulet.protocol.ProtocolConnection;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packages applications use ({@code io.rivulet}, {@code spi}, {@code topic}, {@code region}, {@code counters},
 * {@code security}, {@code interceptor}) never show the engine's or the protocol's classes: no public or protected member, supertype or
 * type argument of an exported public type names a type in {@code io.rivulet.engine} or {@code io.rivulet.protocol}.
 * Those packages stay free to change.
 */
class ExportedApiTest
{
    private static final List<String> EXPORTED = List.of("io.rivulet", "io.rivulet.spi", "io.rivulet.topic",
        "io.rivulet.region", "io.rivulet.counters", "io.rivulet.security", "io.rivulet.interceptor",
        "io.rivulet.route", "io.rivulet.serde");
    private static final List<String> INTERNAL = List.of("io.rivulet.engine.", "io.rivulet.protocol.");

    @Test
    void shouldShowNoEngineOrProtocolTypeInTheExportedApi() throws Exception
    {
        final List<Class<?>> types = exportedTypes();
        assertThat(types).as("the scan found the API").contains(Rivulet.class, Rivulet.Context.class, Connection.class);
        final Set<String> leaks = new TreeSet<>();
        for (final Class<?> type : types)
        {
            leaks.addAll(leaks(type));
        }
        assertThat(leaks).as("internal types in the exported API").isEmpty();
    }

    @Test
    void shouldReportAnInternalTypeInAPublicSignature()
    {
        assertThat(leaks(Leaky.class)).anySatisfy(leak -> assertThat(leak).contains("ProtocolConnection"));
        assertThat(leaks(Leaky.class)).anySatisfy(leak -> assertThat(leak).contains("List<ProtocolConnection>"));
        assertThat(leaks(Clean.class)).isEmpty();
    }

    /** For the self-test: a public method that shows an internal type, directly and as a type argument. */
    public static final class Leaky
    {
        public ProtocolConnection connection()
        {
            return null;
        }

        public void accept(final List<ProtocolConnection> connections)
        {
        }

        ProtocolConnection packagePrivate()
        {
            return null;
        }
    }

    /** For the self-test: only its package-private member names an internal type. */
    public static final class Clean
    {
        ProtocolConnection packagePrivate()
        {
            return null;
        }
    }

    private static List<Class<?>> exportedTypes() throws IOException, URISyntaxException, ClassNotFoundException
    {
        final Path root = Path.of(Rivulet.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        final List<Class<?>> types = new ArrayList<>();
        for (final String pkg : EXPORTED)
        {
            final Path dir = root.resolve(pkg.replace('.', '/'));
            try (Stream<Path> files = Files.list(dir))
            {
                for (final Path file : files.filter(f -> f.toString().endsWith(".class")).sorted().toList())
                {
                    final String simple = file.getFileName().toString().replace(".class", "");
                    final Class<?> type = Class.forName(pkg + "." + simple, false,
                        ExportedApiTest.class.getClassLoader());
                    if (isVisible(type))
                    {
                        types.add(type);
                    }
                }
            }
        }
        return types;
    }

    /** @return true when code outside the package can see the type (nested types through their outer types). */
    private static boolean isVisible(final Class<?> type)
    {
        for (Class<?> c = type; c != null; c = c.getDeclaringClass())
        {
            if (c.isAnonymousClass() || c.isLocalClass() || !Modifier.isPublic(c.getModifiers()) &&
                !(c.getDeclaringClass() != null && Modifier.isProtected(c.getModifiers())))
            {
                return false;
            }
        }
        return true;
    }

    private static List<String> leaks(final Class<?> type)
    {
        final List<String> leaks = new ArrayList<>();
        check(leaks, type.getName() + " extends", type.getGenericSuperclass());
        for (final Type face : type.getGenericInterfaces())
        {
            check(leaks, type.getName() + " implements", face);
        }
        for (final Field field : type.getDeclaredFields())
        {
            if (isApi(field.getModifiers()))
            {
                check(leaks, type.getName() + "." + field.getName(), field.getGenericType());
            }
        }
        for (final Constructor<?> constructor : type.getDeclaredConstructors())
        {
            if (isApi(constructor.getModifiers()))
            {
                for (final Type parameter : constructor.getGenericParameterTypes())
                {
                    check(leaks, type.getName() + ".<init>", parameter);
                }
            }
        }
        for (final Method method : type.getDeclaredMethods())
        {
            if (isApi(method.getModifiers()) && !method.isSynthetic())
            {
                final String where = type.getName() + "." + method.getName() + "()";
                check(leaks, where, method.getGenericReturnType());
                for (final Type parameter : method.getGenericParameterTypes())
                {
                    check(leaks, where, parameter);
                }
                for (final Type thrown : method.getGenericExceptionTypes())
                {
                    check(leaks, where, thrown);
                }
            }
        }
        return leaks;
    }

    private static boolean isApi(final int modifiers)
    {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static void check(final List<String> leaks, final String where, final Type type)
    {
        if (type == null)
        {
            return;
        }
        if (mentionsInternal(type))
        {
            leaks.add(where + ": " + type.getTypeName().replaceAll("[a-z0-9_.]+\\.(?=[A-Z])", ""));
        }
    }

    private static boolean mentionsInternal(final Type type)
    {
        if (type instanceof Class<?> c)
        {
            final Class<?> element = c.isArray() ? c.componentType() : c;
            return INTERNAL.stream().anyMatch(p -> element.getName().startsWith(p));
        }
        if (type instanceof ParameterizedType p)
        {
            if (mentionsInternal(p.getRawType()))
            {
                return true;
            }
            for (final Type argument : p.getActualTypeArguments())
            {
                if (mentionsInternal(argument))
                {
                    return true;
                }
            }
            return false;
        }
        if (type instanceof GenericArrayType a)
        {
            return mentionsInternal(a.getGenericComponentType());
        }
        if (type instanceof WildcardType w)
        {
            return Stream.concat(Stream.of(w.getUpperBounds()), Stream.of(w.getLowerBounds()))
                .anyMatch(ExportedApiTest::mentionsInternal);
        }
        if (type instanceof TypeVariable<?> v)
        {
            return Stream.of(v.getBounds()).anyMatch(ExportedApiTest::mentionsInternal);
        }
        return false;
    }
}
