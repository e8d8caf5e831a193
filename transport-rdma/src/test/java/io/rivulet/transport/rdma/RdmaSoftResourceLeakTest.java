package io.rivulet.transport.rdma;

import io.rivulet.spi.Transport;
import io.rivulet.tck.ResourceLeakSuite;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The leak suite over RDMA with the soft provider in socket mode (RC over TCP on 127.0.0.1, as between processes).
 * Both nodes share one transport so that its registered memory can be read: the pools' live registrations,
 * registered bytes and links in use, and the soft devices' live registrations must end where they started.
 */
class RdmaSoftResourceLeakTest extends ResourceLeakSuite
{
    private final RdmaTransport transport = new RdmaTransport(RdmaTestSupport.socketProvider());

    @Override
    protected Transport transport()
    {
        return transport;
    }

    @Override
    protected Map<String, Long> transportResources()
    {
        long registrations = 0;
        long registeredBytes = 0;
        long linksInUse = 0;
        long deviceRegistrations = 0;
        for (final RdmaTransportDriver driver : transport.drivers())
        {
            registrations += driver.memoryPool().liveRegistrations();
            registeredBytes += driver.memoryPool().registeredBytes();
            linksInUse += driver.memoryPool().linksInUse();
            deviceRegistrations += RdmaTestSupport.device(driver).registrations();
        }
        final Map<String, Long> resources = new LinkedHashMap<>();
        resources.put("pool registrations", registrations);
        resources.put("registered bytes", registeredBytes);
        resources.put("links in use", linksInUse);
        resources.put("device registrations", deviceRegistrations);
        return resources;
    }
}
