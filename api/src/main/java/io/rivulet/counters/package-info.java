/**
 * Counters and errors of a node, readable from outside the process: the node file (a memory-mapped header,
 * Agrona counters and a distinct error log), its layout, the type ids of every counter, the factory the
 * engine hands to transports and topics, and the read-only {@link io.rivulet.counters.NodeFile} that tools use.
 */
package io.rivulet.counters;
