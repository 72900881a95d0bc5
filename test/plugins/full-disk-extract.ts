// Run by tar-extract-full.test.ts inside its own mount namespace, over a tiny tmpfs: extracts a
// tarball too big for it and prints how svc would answer the error.
import { errorResponse } from "../../src/http/errors.ts";
import { extractPackage } from "../../src/plugins/tar-extract.ts";

const [tgz = "", dest = ""] = process.argv.slice(2);
try {
  await extractPackage(new Uint8Array(await Bun.file(tgz).arrayBuffer()), dest);
  process.stdout.write(JSON.stringify({ status: 200 }));
} catch (error) {
  const res = errorResponse(error, undefined, "/var/lib/svc/svc.db");
  process.stdout.write(JSON.stringify({ status: res.status, ...(await res.json()) }));
}
