// Run inside a peer's namespace: the official openai client, with the key in SVC_TEST_KEY, transcribes
// the WAV file named on the command line at SVC_TEST_URL, and prints what happened as JSON.
import { createReadStream } from "node:fs";
import OpenAI, { AuthenticationError } from "openai";

if (import.meta.main) {
  const client = new OpenAI({
    baseURL: process.env.SVC_TEST_URL,
    apiKey: process.env.SVC_TEST_KEY ?? "",
    maxRetries: 0,
  });
  try {
    const result = await client.audio.transcriptions.create({
      file: createReadStream(process.argv[2] ?? ""),
      model: "whisper-1",
    });
    process.stdout.write(JSON.stringify({ text: result.text }));
  } catch (error) {
    process.stdout.write(
      JSON.stringify({
        error: error instanceof AuthenticationError ? "AuthenticationError" : String(error),
        message: error instanceof Error ? error.message : "",
      }),
    );
  }
}
