// Try an app context: which format matches (GET /api/formats/match) and what the text pipeline
// makes of a sample (POST /api/post-process), both with the x-app-context header a client sends.
import { useEffect, useState } from "preact/hooks";
import { type Answer, api } from "../api.ts";
import { ErrorText, useAction } from "../ui.tsx";

type Match = Answer<"get", "/api/formats/match">;
type Processed = Answer<"post", "/api/post-process">;

interface Result {
  format: Match["format"];
  text: string;
  cleanup: string;
  used: Processed["format"];
}

const sample = "um so the meeting moved to thursday comma can you join question mark";

/** The header value: JSON, percent-encoded (headers are Latin-1; svc decodes it). */
function contextHeader(context: Record<string, string>): Record<string, string> {
  const fields = Object.fromEntries(Object.entries(context).filter(([, value]) => value.trim() !== ""));
  return Object.keys(fields).length > 0
    ? { "x-app-context": encodeURIComponent(JSON.stringify(fields)) }
    : {};
}

/** Reruns the last test when `version` changes (a format was edited), so the answer stays true. */
export function FormatTester(props: { version: number }) {
  const [context, setContext] = useState({ app: "", title: "", url: "" });
  const [text, setText] = useState(sample);
  const [result, setResult] = useState<Result | null>(null);
  const action = useAction();

  const test = () =>
    action.run(async () => {
      const headers = contextHeader(context);
      const [match, processed] = await Promise.all([
        api.get("/api/formats/match", { headers }),
        api.post("/api/post-process", { headers, body: { text } }),
      ]);
      setResult({
        format: match.format,
        text: processed.text,
        cleanup: processed.stages.cleanup.mode,
        used: processed.format,
      });
    });
  useEffect(() => {
    if (result) void test();
  }, [props.version]);

  const input = (name: keyof typeof context, label: string, placeholder: string) => (
    <div class="field grow">
      <label for={`tester-${name}`}>{label}</label>
      <input
        id={`tester-${name}`}
        placeholder={placeholder}
        value={context[name]}
        onInput={(e) => setContext((old) => ({ ...old, [name]: e.currentTarget.value }))}
      />
    </div>
  );

  return (
    <form
      class="panel format-tester"
      aria-labelledby="format-tester-title"
      onSubmit={(event) => {
        event.preventDefault();
        void test();
      }}
    >
      <h2 id="format-tester-title">Try it</h2>
      <p class="muted small">
        Type where you would dictate; svc picks the format as it does for a real dictation.
      </p>
      <div class="row">
        {input("app", "App name", "Slack")}
        {input("title", "Window title", "Inbox – Gmail")}
        {input("url", "Page URL", "https://github.com/…")}
      </div>
      <div class="field">
        <label for="tester-text">Sample text, as the speech engine writes it</label>
        <textarea id="tester-text" rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </div>
      <button type="submit" class="primary" disabled={action.busy}>
        Test
      </button>
      <ErrorText error={action.error} />
      {result && (
        <div class="tester-result" aria-live="polite">
          <p class="tester-match">
            {result.format ? (
              <>
                Matches <strong>{result.format.label}</strong>
                {result.format.isBuiltin && <span class="badge">built-in</span>}
              </>
            ) : (
              "No enabled format matches: the text gets the default style."
            )}
          </p>
          <p class="small muted">
            Result with {result.cleanup} cleanup{result.used ? ` and the format “${result.used.label}”` : ""}:
          </p>
          <output class="tester-output" for="tester-text">
            {result.text}
          </output>
        </div>
      )}
    </form>
  );
}
