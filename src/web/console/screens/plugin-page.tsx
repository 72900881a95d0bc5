import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { attachBridge } from "../../bridge/host.ts";
import { sessionFetch } from "../api.ts";
import { isConsolePath } from "../paths.ts";
import { pluginTitle, usePlugins } from "../plugin-list.ts";
import { navigate } from "../router.ts";
import { toast } from "../toast.tsx";
import { copyText, Screen } from "../ui.tsx";

/**
 * A plugin's page, framed sandboxed (`allow-scripts` only: an opaque origin, no same-origin
 * access, no top navigation, no popups, no forms) from its UI path. The console answers its
 * `window.svc` calls, confined to the plugin's own namespace and the health route.
 */
export function PluginPageScreen(props: { slug: string; pageId: string }) {
  const { plugins, loaded } = usePlugins();
  const frame = useRef<HTMLIFrameElement>(null);
  const plugin = plugins.find((item) => item.slug === props.slug && item.enabled && item.loaded);
  const page = plugin?.pages.find((item) => item.id === props.pageId);
  const url = page?.url;
  // The console listens before the frame loads: a page's first window.svc call must find it.
  useLayoutEffect(() => {
    const element = frame.current;
    if (!element || !url) return;
    const detach = attachBridge(
      element,
      props.slug,
      {
        copy: (text) => copyText(text),
        toast: (message, variant) => toast(message, variant),
        navigate: (to) => {
          if (!isConsolePath(to.split(/[?#]/)[0] ?? ""))
            throw new Error(`navigate: "${to}" is not a console screen`);
          navigate(to);
        },
      },
      sessionFetch,
    );
    element.src = url;
    return detach;
  }, [url, props.slug]);
  useEffect(() => {
    if (plugin && page) document.title = `${page.title} · ${pluginTitle(plugin)} · svc`;
  }, [plugin, page]);
  if (!page || !plugin) {
    return (
      <Screen title="Plugin page">
        {loaded ? (
          <p class="notice">
            No enabled plugin has this page. See <a href="/plugins">Plugins</a>.
          </p>
        ) : (
          <p class="muted">Loading…</p>
        )}
      </Screen>
    );
  }
  return (
    <Screen title={page.title}>
      <iframe
        ref={frame}
        class="plugin-frame"
        title={`${page.title} (${pluginTitle(plugin)})`}
        sandbox="allow-scripts"
        referrerpolicy="no-referrer"
      />
    </Screen>
  );
}
