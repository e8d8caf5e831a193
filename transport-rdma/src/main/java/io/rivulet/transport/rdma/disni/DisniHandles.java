package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.impl.NatObject;
import io.rivulet.transport.rdma.verbs.VerbsException;

/**
 * The C pointers behind DiSNI's verbs objects, for the calls librivulet-verbs makes on them
 * ({@link io.rivulet.transport.rdma.jni.Verbs}): DiSNI's {@code NatObject.getObjId()} is the pointer of the
 * {@code ibv_pd}, {@code ibv_cq}, {@code ibv_qp}, {@code ibv_context} or {@code rdma_cm_id} it wraps.
 */
final class DisniHandles
{
    private DisniHandles()
    {
    }

    /**
     * @param disniObject a DiSNI verbs object ({@code IbvPd}, {@code IbvCQ}, {@code IbvQP}, {@code RdmaCmId}...).
     * @param what        its role, for the message.
     * @return the C pointer DiSNI keeps for it.
     * @throws VerbsException when it is not one of DiSNI's native objects or has no pointer.
     */
    static long handleOf(final Object disniObject, final String what) throws VerbsException
    {
        if (!(disniObject instanceof NatObject))
        {
            throw new VerbsException(what + " " + disniObject + " is not a DiSNI native object: it has no C handle " +
                "for librivulet-verbs");
        }
        final long handle = ((NatObject)disniObject).getObjId();
        if (handle <= 0)
        {
            throw new VerbsException(what + " has no valid C handle (" + handle + "): it was destroyed or never created");
        }
        return handle;
    }
}
