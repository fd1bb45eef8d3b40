// The one parser of query strings: the router's (Fastify's default, fast-querystring), named
// here so that the early answers (early-answers.ts) read a query exactly as a route's
// `request.query` is read.
import { parse } from 'fast-querystring';

/** The query string (without its `?`) as an object of strings and arrays of strings. */
export function parseQueryString(search: string): Record<string, unknown> {
  return search.length === 0 ? {} : (parse(search) as Record<string, unknown>);
}
