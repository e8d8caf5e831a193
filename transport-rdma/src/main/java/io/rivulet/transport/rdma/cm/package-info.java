/**
 * What the hardware providers share about the RDMA connection manager: its events ({@link
 * io.rivulet.transport.rdma.cm.CmEventType}) and the set-up state machine of one RC connection ({@link
 * io.rivulet.transport.rdma.cm.ConnectionSetup}), driven by those events and a clock, with a deadline.
 */
package io.rivulet.transport.rdma.cm;
