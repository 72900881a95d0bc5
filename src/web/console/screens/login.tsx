// The console's login: a key, or the one-time code of the start log's link (`/login?code=…`, sent
// at once). svc answers with an HttpOnly session cookie; the key is not kept by the page.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, rememberSessionCheck } from "../api.ts";
import { navigate } from "../router.ts";
import { refreshSession } from "../session.ts";
import { ErrorText, PageAlone, Screen, useAction } from "../ui.tsx";

export function LoginScreen(props: { code: string | null }) {
  const [secret, setSecret] = useState("");
  const login = useAction();
  const tried = useRef(false);
  const send = (value: string) =>
    login.run(async () => {
      const body = value.startsWith("svck_") ? { key: value } : { code: value };
      const answer = await api.post("/api/auth/login", { body });
      rememberSessionCheck(answer.check);
      setSecret("");
      navigate("/", { replace: true });
      await refreshSession();
    });
  useEffect(() => {
    if (props.code === null || tried.current) return;
    tried.current = true;
    // The code leaves the address bar whether it works or not: it works once.
    history.replaceState(null, "", "/login");
    void send(props.code);
  }, [props.code]);
  return (
    <PageAlone>
      <Screen title="Log in to svc">
        <form
          class="panel stack login"
          onSubmit={(event) => {
            event.preventDefault();
            void send(secret.trim());
          }}
        >
          <p class="muted">
            This svc asks for a key. Paste one (<code>svck_…</code>, made with <code>svc keys create</code> or
            on the Access screen), or the one-time code from svc's start log.
          </p>
          <label for="login-secret">Key or one-time code</label>
          <input
            id="login-secret"
            type="password"
            autocomplete="off"
            value={secret}
            onInput={(event) => setSecret(event.currentTarget.value)}
          />
          <div class="row">
            <button type="submit" class="button primary" disabled={login.busy || secret.trim() === ""}>
              Log in
            </button>
          </div>
          <ErrorText error={login.error} />
        </form>
      </Screen>
    </PageAlone>
  );
}
