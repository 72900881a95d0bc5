// `bun run start`: the server with its embedded defaults, keeping data in ./data unless told otherwise.
process.env.SVC_DB_PATH ||= "./data/svc.db";
// The web console is bundled from src/web/console first (about 150 ms), so edits show on restart.
const { buildConsole } = await import("./build-console.ts");
await buildConsole({ quiet: true });
const { main } = await import("../src/main.ts");
process.exit(await main(process.argv.slice(2), process.env));

export {};
