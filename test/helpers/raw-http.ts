import { connect } from "node:net";

/**
 * Sends a request exactly as written (request line and headers, without the blank line) on a new
 * connection that it asks to close; what fetch would normalise or refuse to send arrives as it is.
 * Returns the status and the body as they came back. `body`, if any, follows the blank line.
 */
export function rawRequest(
  port: number,
  head: string[],
  body = "",
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let data = "";
    const socket = connect(port, "127.0.0.1", () => {
      socket.write([...head, "Connection: close", "", ""].join("\r\n") + body);
    });
    socket.on("data", (chunk) => {
      data += chunk.toString();
    });
    const done = () => {
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf("\r\n\r\n") + 4) });
    };
    socket.on("end", done);
    // An upgraded socket (101) stays open: what came in 2 s is the answer.
    socket.setTimeout(2000, () => {
      socket.destroy();
      done();
    });
    socket.on("error", reject);
  });
}
