// Who may use svc: the switch that requires keys (stored; SVC_AUTH decides when set), the keys
// (made here, shown once, revoked), and this browser's session.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { AddDevice } from "../add-device.tsx";
import { api, madeWhileOffWarning, rememberSessionCheck } from "../api.ts";
import { refreshSession, type Session, useSession } from "../session.ts";
import { toast } from "../toast.tsx";
import {
  ConfirmButton,
  copyText,
  ErrorText,
  focusAfterRemoval,
  focusHeading,
  formatTime,
  Screen,
  useAction,
  useResource,
} from "../ui.tsx";

// The keys table reloads when a key is made elsewhere on the page: turning keys on (here or in the
// banner) or the spare admin key offered at Log out.
const keyListeners = new Set<() => void>();
export const keysChanged = (): void => {
  for (const listener of keyListeners) listener();
};

/** A key shown this once, with a button to copy it; the focus goes to it, since it is shown once. */
export function KeyReveal(props: { name: string; secret: string; onDone?: () => void }) {
  const copy = useRef<HTMLButtonElement>(null);
  useEffect(() => copy.current?.focus(), []);
  return (
    <div class="notice key-reveal" role="status">
      <p>
        The key <strong>{props.name}</strong>, shown this once (svc keeps only its hash):
      </p>
      <p>
        <code class="key" data-testid="revealed-key">
          {props.secret}
        </code>
      </p>
      <div class="row">
        <button type="button" class="button" ref={copy} onClick={() => void copyText(props.secret)}>
          Copy
        </button>
        {props.onDone && (
          <button
            type="button"
            class="button"
            onClick={() => {
              props.onDone?.();
              focusHeading();
            }}
          >
            I have saved it
          </button>
        )}
      </div>
    </div>
  );
}

function ModeSwitch(props: { session: Session }) {
  const { session } = props;
  const change = useAction();
  const [made, setMade] = useState<{ name: string; key: string }>();
  const locked = session.modeSource === "env";
  const admin = session.role === "admin";
  const set = (mode: Session["mode"]) =>
    change.run(async () => {
      const answer = await api.put("/api/access", { body: { mode } });
      rememberSessionCheck(answer.check);
      if (answer.key && answer.keyName) setMade({ name: answer.keyName, key: answer.key });
      if (answer.madeWhileOff) toast(madeWhileOffWarning(answer.madeWhileOff), "error");
      keysChanged();
      await refreshSession();
    });
  return (
    <section class="panel stack" aria-labelledby="access-mode-title">
      <h2 id="access-mode-title">Who needs a key</h2>
      {locked && (
        <p class="notice">
          <code>SVC_AUTH={session.mode}</code> is set in svc's environment and decides; change it there and
          restart svc.
        </p>
      )}
      <label class="check">
        <input
          type="checkbox"
          checked={session.mode !== "off"}
          disabled={locked || !admin || change.busy}
          onChange={(event) => void set(event.currentTarget.checked ? "keys" : "off")}
        />
        Require a key from other devices
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={session.mode === "keys-everywhere"}
          disabled={locked || !admin || change.busy || session.mode === "off"}
          onChange={(event) => void set(event.currentTarget.checked ? "keys-everywhere" : "keys")}
        />
        Require a key on svc's own machine too
      </label>
      <p class="muted small">
        Off: anyone who reaches svc may use and change it. Keys: browsers and apps on other devices log in or
        send <code>Authorization: Bearer</code>; this machine stays trusted. Wyoming (Home Assistant) is
        limited to SVC_WYOMING_ALLOW instead.
      </p>
      {made && <KeyReveal name={made.name} secret={made.key} onDone={() => setMade(undefined)} />}
      <ErrorText error={change.error} />
    </section>
  );
}

/** Adding a device and the keys table, which lists it at once. */
function Keys(props: { session: Session }) {
  const { session } = props;
  const keys = useResource("/api/keys");
  const [name, setName] = useState("");
  const [role, setRole] = useState<"admin" | "dictate">("dictate");
  const [made, setMade] = useState<{ name: string; key: string }>();
  const create = useAction();
  const revoke = useAction();
  const [revokingOwn, setRevokingOwn] = useState(false);
  const ownAdminKey = (key: { name: string; role: string }) =>
    session.via === "session" && session.role === "admin" && key.name === session.keyName;
  const revokeKey = async (name: string) => {
    await api.delete("/api/keys/{name}", { params: { name } });
    toast(`Revoked ${name}`, "success");
    await keys.reload();
    await refreshSession();
  };
  const { reload } = keys;
  useEffect(() => {
    keyListeners.add(reload);
    return () => keyListeners.delete(reload);
  }, [reload]);
  return (
    <>
      <AddDevice session={session} onAdded={keys.reload} />
      <section class="panel stack" aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        <form
          class="row"
          onSubmit={(event) => {
            event.preventDefault();
            void create.run(async () => {
              const answer = await api.post("/api/keys", { body: { name: name.trim(), role } });
              setMade({ name: answer.name, key: answer.key });
              setName("");
              await keys.reload();
            });
          }}
        >
          <div class="grow">
            <label for="key-name">Name</label>
            <input
              id="key-name"
              value={name}
              placeholder="phone"
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </div>
          <div>
            <label for="key-role">Role</label>
            <select
              id="key-role"
              value={role}
              onChange={(e) => setRole(e.currentTarget.value as typeof role)}
            >
              <option value="dictate">dictate</option>
              <option value="admin">admin</option>
            </select>
          </div>
          <button type="submit" class="button primary" disabled={create.busy || name.trim() === ""}>
            Create key
          </button>
        </form>
        <ErrorText error={create.error ?? revoke.error ?? keys.error} />
        {made && <KeyReveal name={made.name} secret={made.key} onDone={() => setMade(undefined)} />}
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Role</th>
                <th>Created</th>
                <th>Last used</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {(keys.data?.items ?? []).map((key) => (
                <tr key={key.name}>
                  <td>{key.name}</td>
                  <td>
                    {key.role}
                    {key.madeWhileOff && <span class="badge error">made while keys were off</span>}
                  </td>
                  <td>{formatTime(key.createdAt)}</td>
                  <td>{key.lastUsedAt ? formatTime(key.lastUsedAt) : "never"}</td>
                  <td>
                    {ownAdminKey(key) ? (
                      // Revoking the admin key this browser uses ends its session: the way back first.
                      <button
                        type="button"
                        class="button"
                        id={`revoke-own-${key.name}`}
                        aria-label={`Revoke ${key.name}`}
                        aria-expanded={revokingOwn}
                        onClick={() => setRevokingOwn(true)}
                      >
                        Revoke
                      </button>
                    ) : (
                      <ConfirmButton
                        label="Revoke"
                        confirm={
                          key.name === session?.keyName
                            ? "This browser uses it: click again to revoke and log out"
                            : "Click again to revoke"
                        }
                        subject={key.name}
                        onConfirm={() => {
                          const refocus = focusAfterRemoval(document.activeElement?.closest("tr"));
                          void revoke.run(async () => {
                            await revokeKey(key.name);
                            refocus();
                          });
                        }}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {revokingOwn && session.keyName && (
          <WayBack
            leaveLabel={`Revoke ${session.keyName} and log out`}
            busy={revoke.busy}
            onLeave={() => void revoke.run(() => revokeKey(session.keyName ?? ""))}
            onStay={() => {
              setRevokingOwn(false);
              setTimeout(() => document.getElementById(`revoke-own-${session.keyName}`)?.focus());
            }}
          />
        )}
      </section>
    </>
  );
}

/**
 * The way back for an admin about to leave their credential behind (logging out, or revoking the key
 * this browser uses): the start log's link logs in with a key nobody saw, so before the session ends
 * they are told how to come back, and may make an admin key that is shown once.
 */
function WayBack(props: { leaveLabel: string; busy: boolean; onLeave(): void; onStay(): void }) {
  const [spare, setSpare] = useState<{ name: string; key: string }>();
  const makeSpare = useAction();
  // The keyboard lands in the question before it is painted.
  const first = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => first.current?.focus(), []);
  // Escape is "Stay logged in" wherever the focus is: a person who presses it at once, while the
  // focus is still on the button that asked, stays too. Not while a new key is on show (it is shown
  // once), nor for an Escape something else took (an armed confirmation, the "?" sheet).
  const stay = useRef(props.onStay);
  stay.current = props.onStay;
  useEffect(() => {
    if (spare) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      if (event.target instanceof Element && event.target.closest("dialog[open]")) return;
      event.preventDefault();
      stay.current();
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [spare]);
  return (
    <div class="notice stack" role="alert">
      <p>
        To come back you will need an admin key. If you have none written down, make one now: it is shown
        once. Without one, only <code>svc keys create --name NAME --role admin</code> on svc's machine lets
        you in again.
      </p>
      {spare && <KeyReveal name={spare.name} secret={spare.key} onDone={() => setSpare(undefined)} />}
      <div class="row">
        <button
          type="button"
          class="button primary"
          ref={first}
          disabled={makeSpare.busy || spare !== undefined}
          onClick={() =>
            void makeSpare.run(async () => {
              const name = `owner-${new Date().toISOString().slice(0, 10)}-${Math.floor(Math.random() * 1000)}`;
              const made = await api.post("/api/keys", { body: { name, role: "admin" } });
              setSpare({ name: made.name, key: made.key });
              keysChanged();
            })
          }
        >
          Make an admin key first
        </button>
        <button type="button" class="button" disabled={props.busy} onClick={props.onLeave}>
          {props.leaveLabel}
        </button>
        <button type="button" class="link" onClick={props.onStay}>
          Stay logged in
        </button>
      </div>
      <ErrorText error={makeSpare.error} />
    </div>
  );
}

function ThisBrowser(props: { session: Session }) {
  const { session } = props;
  const logout = useAction();
  // An admin logging out may hold no key they could type: the way back first (WayBack).
  const [asking, setAsking] = useState(false);
  const leave = () =>
    void logout.run(async () => {
      await api.post("/api/auth/logout");
      await refreshSession();
    });
  return (
    <section class="panel stack" aria-labelledby="browser-title">
      <h2 id="browser-title">This browser</h2>
      {session.via === "trusted" ? (
        <p>
          {session.mode === "off"
            ? "Keys are off: it needs none."
            : "It is on svc's own machine: it needs no key."}
        </p>
      ) : (
        <p>
          Logged in with the key <strong>{session.keyName}</strong> ({session.role}).
        </p>
      )}
      {session.via === "session" && !asking && (
        <div class="row">
          <button
            type="button"
            class="button"
            id="logout"
            disabled={logout.busy}
            onClick={() => (session.role === "admin" ? setAsking(true) : leave())}
          >
            Log out
          </button>
        </div>
      )}
      {asking && (
        <WayBack
          leaveLabel="Log out"
          busy={logout.busy}
          onLeave={leave}
          onStay={() => {
            setAsking(false);
            setTimeout(() => document.getElementById("logout")?.focus());
          }}
        />
      )}
      <ErrorText error={logout.error} />
    </section>
  );
}

export function AccessScreen() {
  const { session } = useSession();
  return (
    <Screen title="Access">
      {session && <ModeSwitch session={session} />}
      {session?.role === "admin" && <Keys session={session} />}
      {session && <ThisBrowser session={session} />}
      {session?.role === "admin" && session.mode !== "off" && (
        <p class="muted small">
          Lost the admin key? On svc's machine: svc keys create --name NAME --role admin.
        </p>
      )}
    </Screen>
  );
}
