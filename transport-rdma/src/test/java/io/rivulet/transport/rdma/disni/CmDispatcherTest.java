package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.RdmaCmEvent.EventType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CmDispatcherTest
{
    private final CmDispatcher dispatcher = new CmDispatcher();
    private final Object listenId = new Object();
    private final Object connectionId = new Object();
    private final Object requestId = new Object();
    private final List<String> listenerEvents = new ArrayList<>();
    private final List<String> connectionEvents = new ArrayList<>();

    @Test
    void shouldRouteConnectRequestsByListeningIdAndEverythingElseByTheirId()
    {
        dispatcher.register(listenId, (type, id) -> listenerEvents.add(type + "@" + (id == requestId ? "request" : id)));
        dispatcher.register(connectionId, (type, id) -> connectionEvents.add(type.name()));

        assertThat(dispatcher.dispatch(EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal(), listenId, requestId))
            .isEqualTo(EventType.RDMA_CM_EVENT_CONNECT_REQUEST);
        assertThat(dispatcher.dispatch(EventType.RDMA_CM_EVENT_ESTABLISHED.ordinal(), null, connectionId))
            .isEqualTo(EventType.RDMA_CM_EVENT_ESTABLISHED);

        assertThat(listenerEvents).containsExactly("RDMA_CM_EVENT_CONNECT_REQUEST@request");
        assertThat(connectionEvents).containsExactly("RDMA_CM_EVENT_ESTABLISHED");
    }

    @Test
    void shouldDropEventsForUnknownIdsAndUnknownTypes()
    {
        dispatcher.register(connectionId, (type, id) -> connectionEvents.add(type.name()));

        assertThat(dispatcher.dispatch(EventType.RDMA_CM_EVENT_TIMEWAIT_EXIT.ordinal(), null, new Object())).isNull();
        assertThat(dispatcher.dispatch(EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal(), null, connectionId)).isNull();
        assertThat(dispatcher.dispatch(99, null, connectionId)).isNull();
        assertThat(dispatcher.dispatch(-1, null, connectionId)).isNull();
        assertThat(connectionEvents).isEmpty();
    }

    @Test
    void shouldMatchIdsByIdentityAndForgetUnregisteredOnes()
    {
        final String id = new String("id");
        dispatcher.register(id, (type, eventId) -> connectionEvents.add(type.name()));

        assertThat(dispatcher.dispatch(EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal(), null, new String("id"))).isNull();
        dispatcher.unregister(id);
        assertThat(dispatcher.dispatch(EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal(), null, id)).isNull();
        assertThat(dispatcher.size()).isZero();
    }
}
