import { packTar } from "modern-tar";

/**
 * A package tarball as `npm pack` makes it: each file under `package/`, gzipped. `files` maps the
 * path inside the package ("dist/index.js", with forward slashes) to its bytes.
 */
export async function packPackage(files: Iterable<[string, Uint8Array]>): Promise<Uint8Array<ArrayBuffer>> {
  const entries = [...files].map(([name, body]) => ({
    header: { name: `package/${name}`, size: body.length, type: "file" as const },
    body,
  }));
  return Bun.gzipSync(await packTar(entries));
}
