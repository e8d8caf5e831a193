package io.rivulet.transport.tcp;

/**
 * Something registered with a {@link TcpTransportDriver}'s selector, attached to its selection key.
 * Engine thread only.
 */
interface Selectable extends AutoCloseable
{
    /**
     * The selector reported the channel ready; only records the fact, the next accept, finish-connect
     * or read does the work.
     *
     * @param readyOps of the selection key.
     */
    void onReady(int readyOps);

    @Override
    void close();
}
