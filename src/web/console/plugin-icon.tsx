import { iconEmoji, iconPaths } from "./icons.ts";

/** A plugin's icon: its drawing as inline SVG (no emoji font needed), or the emoji it named. */
export function PluginIcon({ name }: { name: string | null }) {
  const paths = iconPaths(name);
  if (!paths) return <span class="plugin-icon">{iconEmoji(name)}</span>;
  const key = (name ?? "puzzle").trim();
  return (
    <svg
      class="plugin-icon"
      data-icon={key}
      viewBox="0 0 24 24"
      width="1em"
      height="1em"
      fill="none"
      stroke="currentColor"
      stroke-width="2"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {paths.map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  );
}
