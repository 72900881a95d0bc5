import { expect, test } from "bun:test";
import { rawPath } from "../../src/http/raw-path.ts";

test.each([
  ["http://localhost:4649/api/health", "/api/health"],
  ["http://localhost:4649/api/history?search=a%20b&limit=5", "/api/history"],
  ["http://localhost/api/plugins/a%2Fb/x", "/api/plugins/a%2Fb/x"],
  ["http://localhost/api/x#frag?not-a-query", "/api/x"],
  ["http://localhost/api/x?q=1#frag", "/api/x"],
  ["http://[::1]:4649/", "/"],
  ["http://localhost", "/"],
  ["http://localhost?q=1", "/"],
  ["/api/settings", "/api/settings"],
  ["/api//x?q=1", "/api//x"],
  ["/", "/"],
])("%p → %p", (url, path) => {
  expect(rawPath(url)).toBe(path);
});
