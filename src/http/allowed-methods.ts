import { TrieRouter } from "hono/router/trie-router";

/** A route as Hono lists it in `app.routes`. */
interface ListedRoute {
  method: string;
  path: string;
}

// Hono answers HEAD with the GET route; OPTIONS has no route anywhere.
const methodOrder = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/**
 * The methods a path answers, so a request with another method gets 405 and an Allow header
 * instead of 404. Middleware (`ALL` or the `/*` body limit) is no route of its own; the table is
 * built on first use, once every route is mounted.
 */
export function createAllowedMethods(routes: () => readonly ListedRoute[]): (path: string) => string[] {
  let router: TrieRouter<string> | undefined;
  function build(): TrieRouter<string> {
    const table = new TrieRouter<string>();
    for (const route of routes()) {
      if (route.method === "ALL" || route.path === "/*") continue;
      // Filed under every method, so one match returns the methods of every route on the path.
      table.add("ALL", route.path, route.method);
    }
    return table;
  }
  return (path) => {
    router ??= build();
    const methods = new Set(router.match("GET", path)[0].map(([method]) => method));
    if (methods.has("GET")) methods.add("HEAD");
    return methodOrder.filter((method) => methods.has(method));
  };
}
