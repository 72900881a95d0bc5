import { Screen } from "../ui.tsx";

export function PluginsScreen() {
  return <Screen title="Plugins">{null}</Screen>;
}
