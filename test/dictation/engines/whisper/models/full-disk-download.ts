// Run by full-disk.test.ts inside its own mount namespace, with the models folder on a tiny tmpfs:
// pulls a model too big for it and prints the models.failed event and the model's lastFailure.
import { createTestApp } from "../../../../helpers/app.ts";
import { ggmlLikeFile, presetFor } from "../../../../helpers/ggml-fixture.ts";
import { startModelMirror } from "../../../../helpers/model-mirror.ts";

const [modelsDir = ""] = process.argv.slice(2);
const model = ggmlLikeFile(2_000_000, 1);
const mirror = startModelMirror({ "ggml-base.en.bin": model });
const t = createTestApp({ modelsDir, modelBaseUrl: mirror.url, modelPresets: [presetFor("base.en", model)] });
await t.request("/api/models/base.en/pull", { method: "POST" });
const deadline = performance.now() + 10_000;
let failed = t.events.find((event) => event.type === "models.failed");
while (failed === undefined && performance.now() < deadline) {
  await Bun.sleep(5);
  failed = t.events.find((event) => event.type === "models.failed");
}
const entry = t.models.overview().models.find((model) => model.id === "base.en");
await t.models.stop();
mirror.stop();
process.stdout.write(JSON.stringify({ event: failed ?? null, lastFailure: entry?.lastFailure ?? null }));
