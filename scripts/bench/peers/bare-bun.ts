// The baseline svc is measured against: a bare Bun.serve handler answering the same health body.
const body = JSON.stringify({ status: "ok", name: "svc", version: "0.0.0" });
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () => new Response(body, { headers: { "Content-Type": "application/json" } }),
});
console.log(JSON.stringify({ msg: "svc listening", url: `http://127.0.0.1:${server.port}` }));
