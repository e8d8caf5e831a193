/**
 * JSON for routed requests and remote actors: {@link io.rivulet.jackson.JacksonCodec}, a {@link io.rivulet.serde.Codec}
 * over Jackson 3 that nodes find on their class path.
 */
package io.rivulet.jackson;
