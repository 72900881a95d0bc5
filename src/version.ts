import pkg from "../package.json" with { type: "json" };

/** The release version, compiled into the binary from package.json. */
export const version: string = pkg.version;

/** Set by scripts/build.ts (`--define`): the commit a binary was built from. */
declare const SVC_COMMIT: string;

/** The commit of a compiled binary ("unknown" when built without git), or "source" when run from a checkout. */
export const commit: string = typeof SVC_COMMIT === "undefined" ? "source" : SVC_COMMIT;
