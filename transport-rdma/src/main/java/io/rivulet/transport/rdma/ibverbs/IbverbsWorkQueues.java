package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.transport.rdma.jni.ReceiveChain;
import io.rivulet.transport.rdma.jni.SendChain;
import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.VerbsException;

/**
 * Posting for one {@code ibv_qp}: requests are validated, written into native descriptors and handed to the device
 * as chains of up to {@link Verbs#MAX_CHAIN} with one JNI call each. The send and receive halves may be used by two
 * threads (the sender posts sends, the conductor receives), each with its own chain.
 */
final class IbverbsWorkQueues
{
    /** What differs between RC and UD: what a send may be, and where it goes. */
    interface SendRules
    {
        /** @throws VerbsException naming what the device would refuse. */
        void validate(SendWorkRequest request) throws VerbsException;

        /** @return the {@code ibv_ah} pointer of a UD send, 0 for RC. */
        long addressHandleOf(SendWorkRequest request) throws VerbsException;
    }

    private final String name;
    private final long qp;
    private final int maxSendWr;
    private final int maxReceiveWr;
    private final SendRules rules;
    private final SendChain sendChain = new SendChain(Verbs.MAX_CHAIN);
    private final ReceiveChain receiveChain = new ReceiveChain(Verbs.MAX_CHAIN);

    IbverbsWorkQueues(final String name, final long qp, final int maxSendWr, final int maxReceiveWr, final SendRules rules)
    {
        this.name = name;
        this.qp = qp;
        this.maxSendWr = maxSendWr;
        this.maxReceiveWr = maxReceiveWr;
        this.rules = rules;
    }

    void postSend(final SendWorkRequest request) throws VerbsException
    {
        rules.validate(request);
        sendChain.fill(0, request, rules.addressHandleOf(request));
        checkSend(sendChain.post(qp, 1), 0);
    }

    void postSend(final SendWorkRequest[] requests, final int count) throws VerbsException
    {
        for (int start = 0; start < count; start += Verbs.MAX_CHAIN)
        {
            final int n = Math.min(Verbs.MAX_CHAIN, count - start);
            for (int i = 0; i < n; i++)
            {
                final SendWorkRequest request = requests[start + i];
                rules.validate(request);
                sendChain.fill(i, request, rules.addressHandleOf(request));
            }
            checkSend(sendChain.post(qp, n), start);
        }
    }

    void postReceive(final ReceiveWorkRequest request) throws VerbsException
    {
        checkReceive(request);
        receiveChain.fill(0, request);
        checkReceiveResult(receiveChain.post(qp, 1), 0);
    }

    void postReceive(final ReceiveWorkRequest[] requests, final int count) throws VerbsException
    {
        for (int start = 0; start < count; start += Verbs.MAX_CHAIN)
        {
            final int n = Math.min(Verbs.MAX_CHAIN, count - start);
            for (int i = 0; i < n; i++)
            {
                checkReceive(requests[start + i]);
                receiveChain.fill(i, requests[start + i]);
            }
            checkReceiveResult(receiveChain.post(qp, n), start);
        }
    }

    private static void checkReceive(final ReceiveWorkRequest request) throws VerbsException
    {
        if (request.sge().length() < 0)
        {
            throw new VerbsException("receive buffer length is negative: " + request.sge().length());
        }
    }

    private void checkSend(final int result, final int offset) throws VerbsException
    {
        if (result != 0)
        {
            throw failure("ibv_post_send", result, offset, "send queue full (maxSendWr " + maxSendWr + "): poll the " +
                "send completion queue, and signal at least every maxSendWr-th send");
        }
    }

    private void checkReceiveResult(final int result, final int offset) throws VerbsException
    {
        if (result != 0)
        {
            throw failure("ibv_post_recv", result, offset, "receive queue full (maxReceiveWr " + maxReceiveWr + ")");
        }
    }

    private VerbsException failure(final String call, final int result, final int offset, final String whenFull)
    {
        final int errno = Verbs.chainErrno(result);
        final int index = offset + Verbs.chainFailedIndex(result);
        if (errno == Verbs.ENOMEM)
        {
            return new VerbsException(call + " on " + name + ": " + whenFull + " (request " + index + " of the chain)");
        }
        return new VerbsException(call + " on " + name + " failed at request " + index + " of the chain: " +
            Verbs.errorText(-errno));
    }
}
