// Every test run serves the console as it is in src/web/console, not an older build.
import { buildConsole } from "../scripts/build-console.ts";

await buildConsole({ quiet: true });
