import { expect, test } from "bun:test";
import { apiTypes, apiTypesFile } from "../../../scripts/api-types.ts";

// The console's calls are typed by api-paths.d.ts (`tsc` in `bun run check` compiles them against
// it); generated from the OpenAPI document, which the test app holds every answer to. So a route
// whose answer changes cannot leave the console reading the old shape: run `bun run docs`.
test("the console's API types match the OpenAPI document (run `bun run docs`)", async () => {
  expect(await Bun.file(apiTypesFile).text()).toBe(await apiTypes());
}, 30_000);
