import { environmentHelp } from "../config.ts";
import { dictateHelp } from "./dictate.ts";
import { transcribeHelp } from "./transcribe.ts";

export const commandHelp: Record<string, string> = {
  transcribe: transcribeHelp,
  dictate: dictateHelp,
  serve: `Usage: svc [serve]

Starts the dictation server (the default command).

Environment:
${environmentHelp()}`,
  healthcheck: `Usage: svc healthcheck

Calls GET /api/health on HOST:PORT (0.0.0.0 means this machine) and exits 0 when the server
answers {"status":"ok"}, 1 otherwise. Used by the container's HEALTHCHECK.`,
  version: `Usage: svc version

Prints the svc version, the Bun runtime and the SQLite library versions.`,
  plugins: `Usage: svc plugins new NAME [DIR]
       svc plugins link [DIR] [--copy] [--no-build]
       svc plugins unlink [DIR]
       svc plugins list | reload
       svc plugins install NAME [--version|-v V] [--enable]
       svc plugins install ./plugin.tgz | ./folder [--enable]
       svc plugins uninstall NAME [--purge]
       svc plugins enable NAME | disable NAME

  new        writes a ready-to-build plugin project NAME into DIR (default: NAME without its
             scope): a text hook, a route, a page, a build script and a test, with the svc-sdk
             this svc carries in vendor/ (bun install works offline)
  link       in a plugin's folder (or DIR): runs its build script, then makes the development
             copy <slug>-dev in the plugins folder, named <name>-dev and labelled [DEV], whose
             dist/ links to the plugin's (a copy where links are unavailable: link again after
             each build). It coexists with an installed copy; enable it to run it.
  unlink     removes that development copy
  list, install, uninstall, enable, disable, reload
             ask the running server (SVC_URL or --url; default http://HOST:PORT), with the
             admin key in SVC_KEY or --key when it requires keys (SVC_AUTH). enable and
             disable take a package name, or a slug that only one package has. install
             fetches from SVC_NPM_REGISTRY (a path, ./x.tgz or a plugin folder, is sent to the
             server as a tarball instead, through the same checks) and leaves the plugin off
             unless --enable; uninstall
             keeps the plugin's stored data unless --purge.

The plugins folder is SVC_PLUGINS_DIR, default plugins/ beside SVC_DB_PATH; link and unlink need
one of them. They then ask the server at SVC_URL (or --url) to reload.

Exit status: 0 done; 1 failed (reload: a plugin failed to load); 2 usage; 3 link or unlink changed
the plugins folder but no server answered to reload (the change applies at its next reload).`,
  models: `Usage: svc models list
       svc models pull NAME [--url URL [--sha256 HEX] [--size BYTES]]
       svc models rm NAME
       svc models import FILE [--name NAME]

Manages the speech models in SVC_MODELS_DIR (default: models/ beside the database).

  list     presets (tiny.en, base.en, small.en, their -q5_1 variants, tiny, base) and imported models
  pull     downloads a preset from SVC_MODEL_BASE_URL, checks its pinned size and SHA-256 and moves it
           into place. Ctrl-C keeps what arrived; running the same command again resumes it.
           --url downloads from another address (for a preset, its pins still apply); for a model
           that is not a preset give --sha256 (without it only the size and model structure are checked)
  rm       deletes a model (and any partial download of it)
  import   copies a local ggml file in; a file with a preset's name or bytes must match its SHA-256

Select the model the server uses with the stt_model setting (PUT /api/settings/stt_model).`,
  keys: `Usage: svc keys create --name NAME --role admin|dictate
       svc keys list
       svc keys revoke NAME

Manages the keys svc asks for when SVC_AUTH (or the console's Access screen) requires them. Works on
the database (SVC_DB_PATH) directly, beside a running server: a lost admin key is replaced here.

  create   prints a new key once (svck_…); svc keeps only its SHA-256. admin: everything;
           dictate: dictation, its own history, and reading settings, dictionary, vocabulary,
           formats and models
  list     names, roles, when each was made and last used (never a key)
  revoke   the key and the console sessions made with it stop working within a second`,
  backup: `Usage: svc backup PATH

Writes a consistent copy of the database (SVC_DB_PATH) to PATH with VACUUM INTO. Safe while the
server runs. Refuses to overwrite an existing file. The copy is readable by its owner only (0600).`,
};

export const mainHelp = `svc — self-hosted voice dictation server

Usage: svc [command] [options]

Commands:
  serve          start the server (default)
  healthcheck    exit 0 when the server on HOST:PORT is healthy
  transcribe F…  transcribe audio files offline (same pipeline as the API)
  dictate FILE   stream a recording through live dictation, printing partials and the text
  backup PATH    write a consistent copy of the database
  plugins        link, list, install, uninstall, enable, disable or reload plugins
  models         list, pull, remove or import speech models
  keys           create, list or revoke the keys svc asks for (SVC_AUTH)
  version        print versions
  help [command] show help for a command

Every command reads its configuration from the environment. The variables to know first:
  SVC_DB_PATH    the database file: settings, history, everything svc keeps (required;
                 models/ and plugins/ live beside it unless SVC_MODELS_DIR/SVC_PLUGINS_DIR say otherwise)
  HOST, PORT     where serve listens (default 0.0.0.0:4649)

Run "svc <command> --help" for details ("svc serve --help" lists every variable).`;
