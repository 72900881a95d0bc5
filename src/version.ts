import pkg from "../package.json" with { type: "json" };

/** The release version, compiled into the binary from package.json. */
export const version: string = pkg.version;
