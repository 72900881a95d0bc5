import { type ComponentType, render } from "preact";
import { useEffect, useLayoutEffect, useState } from "preact/hooks";
import "./styles.css";
import { api, madeWhileOffWarning, rememberSessionCheck } from "./api.ts";
import { onConnectionChange } from "./events.ts";
import { KeySheet, showKeySheet } from "./key-sheet.tsx";
import { isScreenPath, loginPath, pluginPagePath, type ScreenPath, screenFor, screens } from "./paths.ts";
import { PluginIcon } from "./plugin-icon.tsx";
import { pluginTitle, usePlugins } from "./plugin-list.ts";
import { interceptLinks, navigate, useLocation } from "./router.ts";
import { AccessScreen, KeyReveal, keysChanged } from "./screens/access.tsx";
import { DictateScreen } from "./screens/dictate.tsx";
import { DictionaryScreen } from "./screens/dictionary.tsx";
import { FormatsScreen } from "./screens/formats.tsx";
import { HistoryScreen } from "./screens/history.tsx";
import { LoginScreen } from "./screens/login.tsx";
import { ModelsScreen } from "./screens/models.tsx";
import { PluginPageScreen } from "./screens/plugin-page.tsx";
import { PluginsScreen } from "./screens/plugins.tsx";
import { SettingsScreen } from "./screens/settings.tsx";
import { VocabularyScreen } from "./screens/vocabulary.tsx";
import { refreshSession, revealKey, type Session, useSession } from "./session.ts";
import { Toasts, toast, toastError } from "./toast.tsx";
import { ErrorText, focusHeading, PageAlone } from "./ui.tsx";

/** Every screen of paths.ts with what draws it: a path in the menu without a view does not compile. */
const screenViews = {
  "/": DictateScreen,
  "/history": HistoryScreen,
  "/dictionary": DictionaryScreen,
  "/vocabulary": VocabularyScreen,
  "/formats": FormatsScreen,
  "/models": ModelsScreen,
  "/settings": SettingsScreen,
  "/plugins": PluginsScreen,
  "/access": AccessScreen,
} as const satisfies Record<ScreenPath, ComponentType>;

function Nav(props: { path: string; role: Session["role"] }) {
  const { plugins } = usePlugins();
  // A plugin's pages call its admin routes: a dictate key is shown none of them.
  const pages = props.role === "admin" ? plugins.filter((plugin) => plugin.loaded && plugin.enabled) : [];
  const shown = screens.filter((screen) => screenFor(screen.path, props.role));
  const current = (path: string) => (props.path === path ? "page" : undefined);
  // On a phone the menu is a button that opens the list; choosing a screen closes it again.
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [props.path]);
  return (
    <nav
      class={`nav${open ? " nav-open" : ""}`}
      aria-label="svc"
      // Escape closes the phone menu (the focus is inside it), back on the button that opened it.
      onKeyDown={(event) => {
        if (event.key !== "Escape" || !open) return;
        setOpen(false);
        event.currentTarget.querySelector<HTMLButtonElement>(".nav-toggle")?.focus();
      }}
    >
      <a class="brand" href="/">
        svc
      </a>
      <button
        type="button"
        class="nav-toggle"
        aria-expanded={open}
        aria-controls="nav-list"
        onClick={() => setOpen(!open)}
      >
        Menu
      </button>
      {/* A choice closes the menu, the screen already shown included; the link it was on goes with
          the list, so the focus goes to the chosen screen's heading (once it is drawn). */}
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: the links inside take the keyboard's Enter as a click */}
      <ul
        id="nav-list"
        onClick={(event) => {
          if (open && (event.target as Element | null)?.closest?.("a[href]")) setTimeout(focusHeading);
          setOpen(false);
        }}
      >
        {shown.map((screen) => (
          <li key={screen.path}>
            <a href={screen.path} aria-current={current(screen.path)}>
              {screen.title}
            </a>
          </li>
        ))}
        {pages.flatMap((plugin) =>
          plugin.pages.map((page) => {
            const path = `/plugins/${plugin.slug}/${page.id}`;
            return (
              <li key={path}>
                <a href={path} aria-current={current(path)} title={pluginTitle(plugin)}>
                  <span class="nav-icon" aria-hidden="true">
                    <PluginIcon name={plugin.icon} />
                  </span>
                  {page.title}
                  {plugin.dev && <span class="badge">DEV</span>}
                </a>
              </li>
            );
          }),
        )}
      </ul>
      <NavFoot />
    </nav>
  );
}

/** Where svc stands and where its API is described, as the last lines of the menu. */
function NavFoot() {
  // The document carries the version: no request for it.
  const version = document.getElementById("app")?.dataset.version;
  return (
    <p class="nav-foot small muted">
      <a href="/api/docs">API reference</a>
      {version && <span> · svc {version}</span>}
      <br />
      <button type="button" class="link" aria-keyshortcuts="?" onClick={showKeySheet}>
        Keyboard keys (?)
      </button>
    </p>
  );
}

function Offline() {
  const [connected, setConnected] = useState(true);
  useEffect(() => onConnectionChange(setConnected), []);
  if (connected) return null;
  return (
    <p class="offline" role="status">
      Live updates are off: reconnecting to svc…
    </p>
  );
}

/**
 * On every screen while svc listens beyond this machine with keys off: who can reach it, and the
 * button that requires keys (its first admin key is shown once, and this browser is logged in).
 */
function AccessBanner(props: { session: Session }) {
  const { revealed } = useSession();
  const { session } = props;
  const [busy, setBusy] = useState(false);
  if (revealed) {
    return <KeyReveal name={revealed.name} secret={revealed.key} onDone={() => revealKey(undefined)} />;
  }
  if (session.mode !== "off" || !session.exposed || session.role !== "admin") return null;
  const turnOn = async () => {
    setBusy(true);
    try {
      const answer = await api.put("/api/access", { body: { mode: "keys" } });
      rememberSessionCheck(answer.check);
      if (answer.key && answer.keyName) revealKey({ name: answer.keyName, key: answer.key });
      if (answer.madeWhileOff) toast(madeWhileOffWarning(answer.madeWhileOff), "error");
      keysChanged();
      await refreshSession();
    } catch (error) {
      toastError(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="notice access-banner" role="alert">
      <p>Anyone on your network can use and change this svc.</p>
      {session.modeSource === "env" ? (
        <p class="small">
          SVC_AUTH=off is set in svc's environment: set SVC_AUTH=keys there and restart svc.
        </p>
      ) : (
        <button type="button" class="button primary" disabled={busy} onClick={() => void turnOn()}>
          Require a key from other devices
        </button>
      )}
    </div>
  );
}

export function App() {
  const { path, search } = useLocation();
  const { session, error } = useSession();
  const loggedIn = session !== undefined && session.role !== null;
  // The login page has nothing to do for a browser svc already knows: on to the first screen.
  useEffect(() => {
    if (loggedIn && path === loginPath) navigate("/", { replace: true });
  }, [loggedIn, path]);
  if (!session)
    return <PageAlone>{error ? <ErrorText error={error} /> : <p class="muted">Loading…</p>}</PageAlone>;
  if (session.role === null) return <LoginScreen code={path === loginPath ? search.get("code") : null} />;
  if (path === loginPath) return null;
  return <Console path={path} session={session} />;
}

function Console(props: { path: string; session: Session }) {
  const { path, session } = props;
  // The first screen is in the document with its handlers attached (a layout effect runs before
  // the browser paints it): `bun run bench console` reads this mark.
  useLayoutEffect(() => {
    performance.mark("svc-ready");
  }, []);
  const plugin = pluginPagePath.exec(path);
  const View = isScreenPath(path) ? screenViews[path] : undefined;
  useEffect(() => {
    const title = screens.find((screen) => screen.path === path)?.title;
    document.title = title ? `${title} · svc` : "svc";
  }, [path]);
  return (
    <div class="layout">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <Nav path={path} role={session.role} />
      <main id="main" tabIndex={-1}>
        <AccessBanner session={session} />
        <Offline />
        {!screenFor(plugin ? "" : path, session.role) ? (
          <p class="notice">
            This screen is for admin keys; the key <strong>{session.keyName}</strong> dictates. Go to{" "}
            <a href="/">Dictate</a> or <a href="/history">your history</a>.
          </p>
        ) : plugin?.[1] && plugin[2] ? (
          <PluginPageScreen key={path} slug={plugin[1]} pageId={plugin[2]} />
        ) : View ? (
          <View />
        ) : (
          <p>Nothing here. Choose a screen from the menu.</p>
        )}
      </main>
      <Toasts />
      <KeySheet />
    </div>
  );
}

const root = document.getElementById("app");
if (root) {
  interceptLinks(document.body);
  render(<App />, root);
}
