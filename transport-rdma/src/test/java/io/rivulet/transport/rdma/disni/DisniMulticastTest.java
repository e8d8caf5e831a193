package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.jni.Gid;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QpType;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DisniMulticastTest
{
    private static final String GROUP = "ff0e:0000:0000:0000:0000:0000:0000:0101/49153";

    @Test
    void shouldAcceptOnlyMulticastGids() throws VerbsException
    {
        final Gid group = DisniMulticast.groupOf(GROUP);
        assertThat(group.lid()).isEqualTo(49153);
        assertThat(group.isMulticast()).isTrue();
        assertThatThrownBy(() -> DisniMulticast.groupOf("fe80:0:0:0:0:0:0:1/0"))
            .isInstanceOf(VerbsException.class).hasMessageContaining("is not a multicast GID");
        assertThatThrownBy(() -> DisniMulticast.groupOf("ff0e::101"))
            .isInstanceOf(VerbsException.class).hasMessageContaining("malformed");
    }

    @Test
    void shouldRefuseQueuePairsOfOtherProvidersAndKinds()
    {
        final QueuePair foreign = new ForeignQueuePair();
        assertThatThrownBy(() -> DisniMulticast.attach(foreign, GROUP))
            .isInstanceOf(VerbsException.class).hasMessageContaining("needs a UD queue pair of the disni provider");
        assertThatThrownBy(() -> DisniMulticast.detach(foreign, GROUP))
            .isInstanceOf(VerbsException.class).hasMessageContaining("needs a UD queue pair of the disni provider");
        assertThat(DisniMulticast.MULTICAST_QPN).isEqualTo(0xffffff);
    }

    private static final class ForeignQueuePair implements QueuePair
    {
        @Override
        public QpType type()
        {
            return QpType.UD;
        }

        @Override
        public QpState state()
        {
            return QpState.RTS;
        }

        @Override
        public int qpNumber()
        {
            return 1;
        }

        @Override
        public void postSend(final SendWorkRequest request)
        {
        }

        @Override
        public void postReceive(final ReceiveWorkRequest request)
        {
        }

        @Override
        public UdAddress udAddress()
        {
            return null;
        }

        @Override
        public void close()
        {
        }

        @Override
        public String toString()
        {
            return "ForeignQueuePair";
        }
    }
}
