import { parseArgs } from "node:util";
import * as v from "valibot";
import { keyNameSchema, type Role, roles } from "../access/keys.ts";
import { createAccessService } from "../access/service.ts";
import { createAccessRepo } from "../db/access-repo.ts";
import { openDatabase } from "../db/database.ts";
import { runMigrations } from "../db/migrate.ts";
import { migrations } from "../db/migrations/index.ts";
import { reasonOf } from "../errors.ts";

export const keysUsage = "usage: svc keys create --name NAME --role admin|dictate | list | revoke NAME";

export interface KeysCliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * `svc keys`: works on the database itself (SVC_DB_PATH), beside a running server or without one,
 * so a lost admin key is replaced on svc's machine. A revoked key stops working within a second.
 */
export function runKeysCommand(args: string[], dbPath: string, io: KeysCliIo): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    io.stderr.write(`svc keys: ${reasonOf(error)}\n${keysUsage}\n`);
    return 2;
  }
  const { positionals, values } = parsed;
  const [command, target] = positionals;
  if (command !== "create" && command !== "list" && command !== "revoke") {
    io.stderr.write(`${keysUsage}\n`);
    return 2;
  }
  const db = openDatabase(dbPath, { migrations });
  try {
    runMigrations(db, migrations);
    const access = createAccessService({ repo: createAccessRepo(db), envMode: null });
    if (command === "list") {
      const keys = access.listKeys();
      if (keys.length === 0) io.stdout.write("no keys\n");
      for (const key of keys) {
        io.stdout.write(
          `${key.name}\t${key.role}\tcreated ${key.createdAt}\tlast used ${key.lastUsedAt ?? "never"}\n`,
        );
      }
      return 0;
    }
    if (command === "revoke") {
      if (!target) {
        io.stderr.write(`${keysUsage}\n(revoke needs a key's name)\n`);
        return 2;
      }
      if (!access.revokeKey(target)) {
        io.stderr.write(`svc keys: no key is named "${target}"\n`);
        return 1;
      }
      io.stdout.write(`revoked ${target}: it and its console sessions no longer work\n`);
      return 0;
    }
    const name = v.safeParse(keyNameSchema, values.name ?? "");
    const role = values.role ?? "dictate";
    if (!name.success || !(roles as readonly string[]).includes(role)) {
      io.stderr.write(
        `svc keys: ${name.success ? "--role must be admin or dictate" : `--name: ${name.issues[0]?.message}`}\n${keysUsage}\n`,
      );
      return 2;
    }
    try {
      const { key } = access.createKey(name.output, role as Role);
      // The key alone on stdout (for a script to capture); what to know about it on stderr.
      io.stdout.write(`${key}\n`);
      io.stderr.write(
        `key "${name.output}" (${role}) created. It is shown this once: svc keeps only its hash. Send it as Authorization: Bearer <key>.\n`,
      );
      return 0;
    } catch (error) {
      io.stderr.write(`svc keys: ${reasonOf(error)}\n`);
      return 1;
    }
  } finally {
    db.close();
  }
}

function parse(args: string[]) {
  return parseArgs({
    args,
    options: { name: { type: "string" }, role: { type: "string" } },
    allowPositionals: true,
  });
}
