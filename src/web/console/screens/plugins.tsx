import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { PlainError } from "../error-words.ts";
import { PluginIcon } from "../plugin-icon.tsx";
import { type PluginInfo, pluginTitle, refreshPlugins, usePlugins } from "../plugin-list.ts";
import { toast } from "../toast.tsx";
import { ConfirmButton, ErrorText, focusAfterRemoval, Screen, useAction } from "../ui.tsx";

/** Why a plugin is not running, in plain words; where it failed and its own message under Details. */
const loadError = (plugin: PluginInfo, error: { stage: string; message: string }) =>
  new PlainError(
    `${pluginTitle(plugin)} could not be started, so it is off. Update or reinstall it, or ask its author (Details say what failed).`,
    [
      ["Failed to", error.stage],
      ["The plugin said", error.message],
    ],
  );

/** The state a person reads: on, off, failed (and why), not installed. */
function pluginState(plugin: PluginInfo): { label: string; tone: "ok" | "error" | "" } {
  if (plugin.error) return { label: `failed to ${plugin.error.stage}`, tone: "error" };
  if (!plugin.installed) return { label: "not installed", tone: "error" };
  if (plugin.enabled && plugin.loaded) return { label: "on", tone: "ok" };
  return { label: "off", tone: "" };
}

function InstallForm() {
  const [name, setName] = useState("");
  const [enable, setEnable] = useState(true);
  const install = useAction();
  return (
    <form
      class="panel stack"
      aria-labelledby="install-title"
      onSubmit={(event) => {
        event.preventDefault();
        void install.run(async () => {
          const result = await api.post("/api/plugins/install", { body: { npmName: name.trim(), enable } });
          toast(`Installed ${pluginTitle(result.plugin)} ${result.plugin.version ?? ""}`.trim(), "success");
          setName("");
          await refreshPlugins();
        });
      }}
    >
      <h2 id="install-title">Install a plugin</h2>
      <div class="row">
        <div class="grow">
          <label for="plugin-name">npm package name</label>
          <input
            id="plugin-name"
            value={name}
            required
            placeholder="@svc/profanity-filter"
            autocomplete="off"
            spellcheck={false}
            aria-describedby="install-error"
            onInput={(event) => setName(event.currentTarget.value)}
          />
        </div>
      </div>
      <div class="row">
        <label class="inline">
          <input
            type="checkbox"
            checked={enable}
            onChange={(event) => setEnable(event.currentTarget.checked)}
          />{" "}
          Enable now
        </label>
        <button class="primary" type="submit" disabled={install.busy || !name.trim()}>
          {install.busy ? "Installing…" : "Install"}
        </button>
      </div>
      <ErrorText error={install.error} id="install-error" />
      <p class="muted small">
        Plugins run inside svc with its permissions: install only those you trust. Installing runs no package
        scripts.
      </p>
    </form>
  );
}

function PluginRow(props: { plugin: PluginInfo }) {
  const { plugin } = props;
  const action = useAction();
  const state = pluginState(plugin);
  const byName = { name: plugin.name };
  const act = (work: () => Promise<unknown>, done: string, after?: () => void) =>
    void action.run(async () => {
      await work();
      toast(done, "success");
      await refreshPlugins();
      after?.();
    });
  return (
    <li class="panel plugin">
      <div class="row">
        <h3 class="grow">
          <span aria-hidden="true">
            <PluginIcon name={plugin.icon} />{" "}
          </span>
          {pluginTitle(plugin)}
          {plugin.dev && <span class="badge">DEV</span>}
          <span class={`badge ${state.tone}`}>{state.label}</span>
        </h3>
        <span class="muted small">
          {plugin.name} {plugin.version ?? ""}
        </span>
      </div>
      {plugin.description && <p>{plugin.description}</p>}
      {plugin.error && <ErrorText error={loadError(plugin, plugin.error)} />}
      {plugin.pages.length > 0 && (
        <p class="small">
          Pages:{" "}
          {plugin.pages.map((page, index) => (
            <span key={page.id}>
              {index > 0 && ", "}
              <a href={`/plugins/${plugin.slug}/${page.id}`}>{page.title}</a>
            </span>
          ))}
        </p>
      )}
      {plugin.ignoredHooks.length > 0 && (
        <p class="muted small">Not run by svc: {plugin.ignoredHooks.join(", ")}</p>
      )}
      <div class="row">
        {plugin.enabled ? (
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              act(
                () =>
                  api.post("/api/plugins/{slug}/disable", { params: { slug: plugin.slug }, query: byName }),
                `${pluginTitle(plugin)} is off`,
              )
            }
          >
            Disable
          </button>
        ) : (
          <button
            type="button"
            class="primary"
            disabled={action.busy || !plugin.installed}
            onClick={() =>
              act(
                () =>
                  api.post("/api/plugins/{slug}/enable", { params: { slug: plugin.slug }, query: byName }),
                `${pluginTitle(plugin)} is on`,
              )
            }
          >
            Enable
          </button>
        )}
        <ConfirmButton
          label="Uninstall"
          confirm={`Click again to uninstall ${pluginTitle(plugin)}`}
          disabled={action.busy}
          onConfirm={() => {
            const refocus = focusAfterRemoval(document.activeElement?.closest("li"));
            act(
              () => api.post("/api/plugins/uninstall", { body: { specifier: plugin.specifier } }),
              `${pluginTitle(plugin)} was uninstalled`,
              refocus,
            );
          }}
        />
      </div>
      <ErrorText error={action.error} />
    </li>
  );
}

export function PluginsScreen() {
  const { plugins, error, loaded } = usePlugins();
  const reload = useAction();
  return (
    <Screen
      title="Plugins"
      actions={
        <button
          type="button"
          disabled={reload.busy}
          onClick={() =>
            void reload.run(async () => {
              await api.post("/api/plugins/reload");
              await refreshPlugins();
              toast("Plugins reloaded", "success");
            })
          }
        >
          {reload.busy ? "Reloading…" : "Reload all"}
        </button>
      }
    >
      <ErrorText error={reload.error ?? error} />
      {loaded && plugins.length === 0 && <p class="muted">No plugins yet. Install one below.</p>}
      <ul class="plugin-list">
        {plugins.map((plugin) => (
          <PluginRow key={`${plugin.name}:${plugin.dev}`} plugin={plugin} />
        ))}
      </ul>
      <InstallForm />
    </Screen>
  );
}
