/**
 * Codecs: how application objects become a message's data and back ({@link io.rivulet.serde.Codec}), named by a
 * content type that travels in the message's composite metadata ({@link io.rivulet.Metadata#CONTENT_TYPE}). Built-in
 * codecs for raw bytes and UTF-8 text, {@link io.rivulet.serde.SbeCodec} for SBE flyweights, JSON in the
 * {@code rivulet-jackson} module; {@link io.rivulet.serde.Codecs} finds the one for a type or content type.
 */
package io.rivulet.serde;
