/**
 * Routing: requests that name a route ({@link io.rivulet.Metadata#ROUTE}) and carry typed values encoded by a codec
 * ({@link io.rivulet.serde.Codec}). {@link io.rivulet.route.Router} builds a {@link io.rivulet.Responder} from
 * handlers by route; {@link io.rivulet.route.Route} ({@code connection.route("price")}) sends to one.
 */
package io.rivulet.route;
