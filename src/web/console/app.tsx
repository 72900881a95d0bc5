import { type ComponentType, render } from "preact";
import { useEffect, useLayoutEffect, useState } from "preact/hooks";
import "./styles.css";
import { onConnectionChange } from "./events.ts";
import { iconGlyph } from "./icons.ts";
import { isScreenPath, pluginPagePath, type ScreenPath, screens } from "./paths.ts";
import { pluginTitle, usePlugins } from "./plugin-list.ts";
import { interceptLinks, useLocation } from "./router.ts";
import { DictateScreen } from "./screens/dictate.tsx";
import { DictionaryScreen } from "./screens/dictionary.tsx";
import { FormatsScreen } from "./screens/formats.tsx";
import { HistoryScreen } from "./screens/history.tsx";
import { ModelsScreen } from "./screens/models.tsx";
import { PluginPageScreen } from "./screens/plugin-page.tsx";
import { PluginsScreen } from "./screens/plugins.tsx";
import { SettingsScreen } from "./screens/settings.tsx";
import { VocabularyScreen } from "./screens/vocabulary.tsx";
import { Toasts } from "./toast.tsx";
import { useResource } from "./ui.tsx";

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
} as const satisfies Record<ScreenPath, ComponentType>;

function Nav(props: { path: string }) {
  const { plugins } = usePlugins();
  const pages = plugins.filter((plugin) => plugin.loaded && plugin.enabled);
  const current = (path: string) => (props.path === path ? "page" : undefined);
  // On a phone the menu is a button that opens the list; choosing a screen closes it again.
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [props.path]);
  return (
    <nav class={`nav${open ? " nav-open" : ""}`} aria-label="svc">
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
      {/* A choice closes the menu, the screen already shown included. */}
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: the links inside take the keyboard's Enter as a click */}
      <ul id="nav-list" onClick={() => setOpen(false)}>
        {screens.map((screen) => (
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
                    {iconGlyph(plugin.icon)}
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
  const health = useResource("/api/health");
  return (
    <p class="nav-foot small muted">
      <a href="/api/docs">API reference</a>
      {health.data && <span> · svc {health.data.version}</span>}
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

export function App() {
  const { path } = useLocation();
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
      <Nav path={path} />
      <main id="main" tabIndex={-1}>
        <Offline />
        {plugin?.[1] && plugin[2] ? (
          <PluginPageScreen key={path} slug={plugin[1]} pageId={plugin[2]} />
        ) : View ? (
          <View />
        ) : (
          <p>Nothing here. Choose a screen from the menu.</p>
        )}
      </main>
      <Toasts />
    </div>
  );
}

const root = document.getElementById("app");
if (root) {
  interceptLinks(document.body);
  render(<App />, root);
}
