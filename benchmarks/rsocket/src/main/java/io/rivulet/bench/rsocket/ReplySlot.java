package io.rivulet.bench.rsocket;

/**
 * The harness's {@link io.rivulet.bench.harness.ReplySlot} under this package's name, for this module's callers:
 * no field and no override, so waiting for a reply runs the harness's code as it is.
 *
 * @param <T> the reply.
 */
final class ReplySlot<T> extends io.rivulet.bench.harness.ReplySlot<T>
{
    ReplySlot(final Wait wait)
    {
        super(wait);
    }
}
