export const commandHelp: Record<string, string> = {
  serve: `Usage: svc [serve]

Starts the dictation server (the default command).

Environment:
  SVC_DB_PATH              database file (required), e.g. ./data/svc.db
  HOST                     interface to bind (default 0.0.0.0)
  PORT                     port to listen on (default 4649)
  SVC_ENV                  production | development | test (default production)
  SVC_LOG_LEVEL            debug | info | warn | error (default info)
  SVC_TRUSTED_ORIGINS      extra origins allowed to change state, comma-separated
  SVC_ALLOWED_HOSTS        host names the server may be reached by, comma-separated
  SVC_MAX_BODY_SIZE        largest request body (default 64mb)
  SVC_SHUTDOWN_TIMEOUT_MS  how long in-flight requests may finish on SIGTERM (default 10000)
  SVC_PLUGINS_DIR          plugins folder (default: plugins/ beside the database)
  SVC_MODELS_DIR           speech models folder (default: models/ beside the database)
  DO_NOT_TRACK             accepted for convention; svc never sends telemetry`,
  healthcheck: `Usage: svc healthcheck

Calls GET /api/health on HOST:PORT (0.0.0.0 means this machine) and exits 0 when the server
answers {"status":"ok"}, 1 otherwise. Used by the container's HEALTHCHECK.`,
  version: `Usage: svc version

Prints the svc version, the Bun runtime and the SQLite library versions.`,
  backup: `Usage: svc backup PATH

Writes a consistent copy of the database (SVC_DB_PATH) to PATH with VACUUM INTO. Safe while the
server runs. Refuses to overwrite an existing file.`,
};

export const mainHelp = `svc — self-hosted voice dictation server

Usage: svc [command] [options]

Commands:
  serve          start the server (default)
  healthcheck    exit 0 when the server on HOST:PORT is healthy
  backup PATH    write a consistent copy of the database
  version        print versions
  help [command] show help for a command

Run "svc <command> --help" for details.`;
