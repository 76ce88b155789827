/**
 * Type markers for controller parameters. They cost nothing at run time (all
 * erased); the analyzer recognises them by symbol, so aliased or re-exported
 * imports work as well.
 */

declare const intFlavor: unique symbol;

/**
 * An integer: JSON Schema `integer`, converted with an integer check. A plain
 * `number` is JSON `number`. A "flavour", not a brand: any number is
 * assignable to it, so callers never need a cast.
 */
export type Int = number & { readonly [intFlavor]?: 'Int' };

/** The parameter is filled from the route segment of the same name. */
export type FromRoute<T> = T;
/** The parameter is filled from the query string parameter of the same name. */
export type FromQuery<T> = T;
/** The parameter is filled from the JSON request body. */
export type FromBody<T> = T;
/** The parameter is filled from a request header (`requestId` reads `request-id`); never shown to the agent. */
export type FromHeader<T> = T;
/** The parameter is a service passed to `mountControllers`, looked up by type name; never shown to the agent. */
export type FromServices<T> = T;
