// Access's "Add a device": a key for a phone or another computer and a one-time link that logs it
// in with that key, shown with its QR code, so that nobody has to type or even see the key.
import { useMemo, useState } from "preact/hooks";
import { api } from "./api.ts";
import { encodeQr, qrPath } from "./qr.ts";
import type { Session } from "./session.ts";
import { copyText, ErrorText, useAction } from "./ui.tsx";

type Role = "dictate" | "admin";

interface Added {
  name: string;
  role: Role;
  link: string;
  expiresAt: string;
}

/** Whether a phone could reach this host name: not when it names this machine only. */
const localOnly = (hostname: string): boolean =>
  /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(hostname);

/** The link as a QR code, black on white whatever the theme (a camera needs the contrast). */
function QrImage(props: { text: string; label: string }) {
  const code = useMemo(() => {
    try {
      return encodeQr(props.text);
    } catch {
      return null;
    }
  }, [props.text]);
  if (code === null) return <p class="muted">The link is too long for a QR code: copy it instead.</p>;
  const side = code.size + 8;
  return (
    <svg
      class="qr"
      viewBox={`0 0 ${side} ${side}`}
      role="img"
      aria-label={props.label}
      shape-rendering="crispEdges"
      data-testid="device-qr"
    >
      <rect width={side} height={side} fill="#fff" />
      <path d={qrPath(code, 4)} fill="#000" />
    </svg>
  );
}

function DeviceLink(props: { added: Added; session: Session; onDone: () => void }) {
  const { added, session } = props;
  const until = new Date(added.expiresAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return (
    <div class="notice stack device-link" role="status">
      <p>
        Scan this code with <strong>{added.name}</strong>, or open the link on it, before {until}. It works
        once and logs that device in to {added.role === "admin" ? "everything, as an admin" : "dictate"}.
      </p>
      {localOnly(location.hostname) && (
        <p class="error" data-testid="localhost-warning">
          A phone cannot reach localhost: this link only works on this machine. Open the console by this
          machine's LAN address (http://&lt;its address on your network&gt;:{location.port || "80"}/access)
          and add the device from there.
          {!session.exposed && " svc also listens on this machine only: start it with HOST=0.0.0.0 first."}
        </p>
      )}
      <QrImage text={added.link} label={`QR code of the login link for ${added.name}`} />
      <p>
        <code class="key" data-testid="device-link">
          {added.link}
        </code>
      </p>
      <div class="row">
        <button type="button" class="button" onClick={() => void copyText(added.link)}>
          Copy link
        </button>
        <button type="button" class="button" onClick={props.onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/** The form, and the link of the device just added; `onAdded` reloads the keys table. */
export function AddDevice(props: { session: Session; onAdded: () => Promise<void> }) {
  const { session } = props;
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("dictate");
  const [added, setAdded] = useState<Added>();
  const add = useAction();
  if (session.mode === "off") {
    return (
      <section class="panel stack" aria-labelledby="device-title">
        <h2 id="device-title">Add a device</h2>
        <p>
          Keys are off, so any device on your network can open svc at its address without a link. To add a
          phone that may only dictate, turn on "Require a key from other devices" first.
        </p>
      </section>
    );
  }
  return (
    <section class="panel stack" aria-labelledby="device-title">
      <h2 id="device-title">Add a device</h2>
      <p class="muted small">
        A phone or another computer gets a key of its own and a one-time link (with its QR code) that logs it
        in: nobody types the key. It then appears among the keys below; revoke it there to log it out.
      </p>
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          void add.run(async () => {
            const answer = await api.post("/api/devices", { body: { name: name.trim(), role } });
            setAdded({
              name: answer.name,
              role: answer.role,
              link: `${location.origin}${answer.path}`,
              expiresAt: answer.expiresAt,
            });
            setName("");
            setRole("dictate");
            await props.onAdded();
          });
        }}
      >
        <div class="grow">
          <label for="device-name">Device</label>
          <input
            id="device-name"
            value={name}
            placeholder="phone"
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="device-role">It may</label>
          <select id="device-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            <option value="dictate">dictate (recommended)</option>
            <option value="admin">do everything (admin)</option>
          </select>
        </div>
        <button type="submit" class="button primary" disabled={add.busy || name.trim() === ""}>
          Add device
        </button>
      </form>
      {role === "admin" && (
        <p class="notice" role="alert">
          An admin device can change every setting, install plugins, and make or revoke keys, yours too. Pick
          it only for a device you alone use; a phone that dictates needs dictate.
        </p>
      )}
      <ErrorText error={add.error} />
      {added && <DeviceLink added={added} session={session} onDone={() => setAdded(undefined)} />}
    </section>
  );
}
