package io.rivulet.transport.rdma.verbs;

/**
 * What a queue pair is created with ({@code ibv_qp_init_attr} plus RC retry settings).
 *
 * @param pd            its protection domain.
 * @param sendCq        where send completions go.
 * @param receiveCq     where receive completions go.
 * @param maxSendWr     outstanding send requests.
 * @param maxReceiveWr  outstanding receive requests.
 * @param maxInlineData largest inline send.
 * @param retryCount    RC transport retries (0-7).
 * @param rnrRetryCount RC receiver-not-ready retries (0-7; 7 means forever on hardware).
 * @param qkey          UD queue key, 0 for RC.
 */
public record QueuePairConfig(
    ProtectionDomain pd,
    CompletionQueue sendCq,
    CompletionQueue receiveCq,
    int maxSendWr,
    int maxReceiveWr,
    int maxInlineData,
    int retryCount,
    int rnrRetryCount,
    int qkey)
{
    public QueuePairConfig
    {
        if (maxSendWr < 1 || maxReceiveWr < 1)
        {
            throw new IllegalArgumentException("maxSendWr and maxReceiveWr must be positive");
        }
        if (retryCount < 0 || retryCount > 7 || rnrRetryCount < 0 || rnrRetryCount > 7)
        {
            throw new IllegalArgumentException("retry counts are 0-7: " + retryCount + ", " + rnrRetryCount);
        }
    }
}
