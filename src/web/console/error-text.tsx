// The one way the console shows a failure, inline, in a notice or in a toast: the plain sentence,
// and the technical detail (code, svc's or the browser's own message) folded under "Details".
import { errorWords } from "./error-words.ts";

/** The sentence and its folded Details, without a frame (a toast draws its own). */
export function ErrorWords(props: { error: unknown }) {
  const { sentence, details } = errorWords(props.error);
  return (
    <>
      <p class="error-sentence">{sentence}</p>
      {details.length > 0 && (
        <details class="error-details">
          <summary>Details</summary>
          <dl>
            {details.map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </>
  );
}

/** An error, announced to screen readers; nothing when there is no error. */
export function ErrorText(props: { error: unknown; id?: string }) {
  if (!props.error) return null;
  return (
    <div class="error" role="alert" id={props.id}>
      <ErrorWords error={props.error} />
    </div>
  );
}
