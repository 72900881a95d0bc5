// `bun run start`: the server with its embedded defaults, keeping data in ./data unless told otherwise.
process.env.SVC_DB_PATH ||= "./data/svc.db";
const { main } = await import("../src/main.ts");
process.exit(await main(process.argv.slice(2), process.env));

export {};
