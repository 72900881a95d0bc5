import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import type { RouteDoc } from "../../src/http/api-docs.ts";
import { rawPath, routePath } from "../../src/http/raw-path.ts";
import { socketHandler } from "../../src/http/sockets.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { rawRequest } from "../helpers/raw-http.ts";

// The access gate must decide on the path the router routes (issue 38, F1: `/%61pi/keys` reached
// the keys routes with no key). For every documented route and every spelling of its path, the
// role the gate asks for must be the role of the route the router reaches with it; a spelling that
// is not canonical is refused with 400 before either sees it.

type Role = "open" | "dictate" | "admin";

const roleOf = (doc: RouteDoc): Role => doc.access ?? "admin";

/** A concrete path of a documented route: each parameter and wildcard filled in. */
const concrete = (path: string) => path.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, "1").replace(/\*/g, "x");

const hex = (ch: string, upper: boolean) => {
  const code = ch.charCodeAt(0).toString(16).padStart(2, "0");
  return `%${upper ? code.toUpperCase() : code}`;
};

/**
 * Other spellings of `path`: a percent-encoding of any one character (either hex case), whole
 * segments encoded, double encoding, each segment in upper case, dot segments (plain and encoded),
 * doubled, encoded and backslashed slashes, a trailing slash and odd suffixes.
 */
export function spellings(path: string): string[] {
  const out = new Set<string>();
  const segments = path.split("/").slice(1);
  for (let i = 0; i < path.length; i++) {
    const ch = path[i] ?? "";
    if (ch === "/") {
      if (i > 0) {
        out.add(`${path.slice(0, i)}%2F${path.slice(i + 1)}`);
        out.add(`${path.slice(0, i)}%2f${path.slice(i + 1)}`);
        out.add(`${path.slice(0, i)}\\${path.slice(i + 1)}`);
      }
      out.add(`${path.slice(0, i)}//${path.slice(i + 1)}`);
      continue;
    }
    out.add(`${path.slice(0, i)}${hex(ch, true)}${path.slice(i + 1)}`);
    out.add(`${path.slice(0, i)}${hex(ch, false)}${path.slice(i + 1)}`);
    out.add(`${path.slice(0, i)}%25${hex(ch, true).slice(1)}${path.slice(i + 1)}`);
  }
  segments.forEach((segment, n) => {
    const before = `/${segments.slice(0, n).join("/")}`.replace(/^\/$/, "");
    const after = segments.slice(n + 1).join("/");
    const join = (middle: string) => `${before}/${middle}${after ? `/${after}` : ""}`;
    out.add(join([...segment].map((ch) => hex(ch, true)).join("")));
    out.add(join(segment.toUpperCase()));
    out.add(join(`${segment.charAt(0).toUpperCase()}${segment.slice(1)}`));
    for (const dots of ["./", "%2e/", "%2E/", "zz/../", "zz/%2e%2e/", "zz/.%2E/", "zz/%2E./"])
      out.add(join(`${dots}${segment}`));
  });
  for (const suffix of [
    "/",
    "//",
    "/.",
    "/%2e",
    "/zz/..",
    ";",
    ";x",
    "%00",
    "%20",
    ".",
    "%2e",
    "%",
    "%zz",
    "%C0%AF",
  ])
    out.add(`${path}${suffix}`);
  out.add(`/${path}`);
  out.delete(path);
  return [...out];
}

/** The documented route the router reaches for `method` and the spelling's routed path, if any. */
function routedDoc(t: TestApp, method: string, path: string): RouteDoc | undefined {
  const [matches] = t.app.router.match(method === "HEAD" ? "GET" : method, path) as unknown as [
    [[unknown, { path: string; method: string }], unknown][],
  ];
  const wanted = (method === "HEAD" ? "get" : method).toLowerCase();
  for (const [[, route]] of matches) {
    const doc = t.docs.routes.find((d) => d.path === route.path && d.method === wanted);
    if (doc) return doc;
  }
  return undefined;
}

/** Row counts of every table: a refused request creates, changes and deletes nothing. */
function tableCounts(t: TestApp): Record<string, number> {
  const tables = t.db
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all();
  return Object.fromEntries(
    tables.map(({ name }) => [
      name,
      (t.db.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${name}"`).get() ?? { n: 0 }).n,
    ]),
  );
}

const bodyFor = (method: string) =>
  method === "GET" || method === "HEAD" || method === "DELETE"
    ? {}
    : {
        body: JSON.stringify({ name: "x", role: "admin", mode: "off" }),
        headers: { "content-type": "application/json" },
      };

describe("every spelling of every documented route (SVC_AUTH=keys-everywhere)", () => {
  const t = createTestApp({ auth: "keys-everywhere" });
  t.access.createKey("owner", "admin");
  const dictate = t.access.createKey("phone", "dictate").key;
  const protectedRoutes = t.docs.routes.filter((doc) => roleOf(doc) !== "open");

  test("the router's path and the gate's are one: a key-less caller reaches no protected route", async () => {
    expect(protectedRoutes.length).toBeGreaterThan(40);
    const before = tableCounts(t);
    let tried = 0;
    const failures: string[] = [];
    for (const doc of t.docs.routes) {
      const path = concrete(doc.path);
      const methods = doc.method === "get" ? ["GET", "HEAD"] : [doc.method.toUpperCase()];
      for (const method of methods) {
        for (const spelled of [path, ...spellings(path)]) {
          // As Bun.serve hands it over: dot segments and backslashes already resolved.
          const url = new Request(`http://localhost${spelled}`).url;
          const routed = routePath(rawPath(url));
          const res = await t.request(url, { method, ...bodyFor(method) });
          tried += 1;
          // Where the router sends this spelling, read from the router itself.
          const reached = routed === null ? undefined : routedDoc(t, method, routed);
          let ok: boolean;
          if (routed === null || res.status === 400) ok = res.status === 400;
          else if (reached && roleOf(reached) !== "open") ok = res.status === 401;
          else ok = res.status !== 401 || reached === undefined;
          if (!ok)
            failures.push(`${method} ${spelled} → ${res.status} (routes to ${reached?.path ?? "nothing"})`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(tried).toBeGreaterThan(5000);
    expect(tableCounts(t)).toEqual(before);
  });

  test("a dictate key gets exactly its role's routes under every spelling", async () => {
    const failures: string[] = [];
    for (const doc of t.docs.routes) {
      const path = concrete(doc.path);
      const method = doc.method.toUpperCase();
      for (const spelled of [path, ...spellings(path)]) {
        const url = new Request(`http://localhost${spelled}`).url;
        const routed = routePath(rawPath(url));
        if (routed === null) continue;
        const reached = routedDoc(t, method, routed);
        if (!reached) continue;
        const res = await t.request(url, {
          method,
          ...bodyFor(method),
          headers: { ...bodyFor(method).headers, authorization: `Bearer ${dictate}` },
        });
        const refused = res.status === 401 || res.status === 403;
        if (refused !== (roleOf(reached) === "admin"))
          failures.push(`${method} ${spelled} → ${res.status} (${reached.path} is ${roleOf(reached)})`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe("random spellings against the live server, no key (SVC_AUTH=keys-everywhere)", () => {
  const t = createTestApp({ auth: "keys-everywhere" });
  t.access.createKey("owner", "admin");
  let server: Server<unknown>;
  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      routes: t.app.bunRoutes,
      fetch: t.app.fetch,
      websocket: socketHandler,
    });
  });
  afterAll(async () => {
    t.app.sockets.closeAll();
    await server.stop(true);
  });

  // A small seeded generator: the same 1,500 spellings every run, so a failure can be replayed.
  let seed = 0x5eed;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const mangle = (path: string): string => {
    let spelled = path;
    for (let steps = 1 + random(3); steps > 0; steps--) {
      const options = spellings(spelled).filter((s) => s.length < 200);
      spelled = options[random(options.length)] ?? spelled;
    }
    return spelled;
  };

  test("never a 2xx or 101 from a protected route, and nothing created", async () => {
    const before = tableCounts(t);
    const targets = t.docs.routes.filter((doc) => roleOf(doc) !== "open");
    const failures: string[] = [];
    for (let i = 0; i < 1500; i++) {
      const doc = targets[random(targets.length)] as RouteDoc;
      const method = doc.method.toUpperCase();
      const spelled = mangle(concrete(doc.path));
      const upgrade = doc.path === "/api/dictate" || doc.path === "/api/events";
      const body = method === "GET" || method === "DELETE" ? "" : '{"name":"x","role":"admin","mode":"off"}';
      const head = [
        `${method} ${spelled} HTTP/1.1`,
        `Host: 127.0.0.1:${server.port}`,
        ...(upgrade
          ? [
              "Upgrade: websocket",
              "Connection: Upgrade",
              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
              "Sec-WebSocket-Version: 13",
            ]
          : []),
        ...(body ? ["Content-Type: application/json", `Content-Length: ${body.length}`] : []),
      ];
      const res = await rawRequest(server.port ?? 0, head, body);
      // Where the router sent it, if anywhere: a 2xx from a page of the console is open to all.
      const routed = routePath(rawPath(new Request(`http://localhost${spelled}`).url));
      const reached = routed === null ? undefined : routedDoc(t, method, routed);
      const protectedHit = reached !== undefined && roleOf(reached) !== "open";
      if ((res.status >= 200 && res.status < 300) || res.status === 101) {
        if (protectedHit || !res.body.startsWith("<!doctype html>"))
          failures.push(`${method} ${spelled} → ${res.status}`);
      }
      if (protectedHit && res.status !== 401) failures.push(`${method} ${spelled} → ${res.status}, not 401`);
    }
    expect(failures).toEqual([]);
    expect(tableCounts(t)).toEqual(before);
  }, 60_000);
});
