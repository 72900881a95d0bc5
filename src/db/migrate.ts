import type { Database } from "bun:sqlite";

/** One schema step. Listed statically in migrations/index.ts; never edited once shipped. */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

export class DatabaseTooNewError extends Error {
  constructor(found: number, known: number) {
    super(
      `database schema version ${found} was written by a newer svc (this build knows up to ${known}); ` +
        "upgrade svc or point SVC_DB_PATH at another file. The file was not modified.",
    );
    this.name = "DatabaseTooNewError";
  }
}

export class MigrationError extends Error {
  constructor(migration: Migration, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `migration ${migration.version} (${migration.name}) failed: ${reason}; the database was left unchanged`,
      {
        cause,
      },
    );
    this.name = "MigrationError";
  }
}

export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.reduce((max, migration) => Math.max(max, migration.version), 0);
}

/** PRAGMA user_version mirrors the migration table and can be read without writing anything. */
export function readSchemaVersion(db: Database): number {
  const row = db.query<{ user_version: number }, []>("PRAGMA user_version").get();
  return row?.user_version ?? 0;
}

export function refuseNewerDatabase(found: number, migrations: readonly Migration[]): void {
  const known = latestVersion(migrations);
  if (found > known) throw new DatabaseTooNewError(found, known);
}

function assertOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `migrations must be numbered 1..n in order; found ${migration.version} at ${index + 1}`,
      );
    }
  });
}

/** Applies pending migrations, each in its own transaction with its record. Returns the ones applied. */
export function runMigrations(db: Database, migrations: readonly Migration[]): Migration[] {
  assertOrdered(migrations);
  const current = readSchemaVersion(db);
  refuseNewerDatabase(current, migrations);
  const pending = migrations.filter((migration) => migration.version > current);
  for (const migration of pending) {
    const apply = db.transaction(() => {
      if (migration.version === 1) {
        db.run(
          "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
        );
      }
      migration.up(db);
      db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", [
        migration.version,
        migration.name,
        new Date().toISOString(),
      ]);
      db.run(`PRAGMA user_version = ${migration.version}`);
    });
    try {
      apply.immediate();
    } catch (error) {
      throw new MigrationError(migration, error);
    }
  }
  return pending;
}
