import { Screen } from "../ui.tsx";

export function SettingsScreen() {
  return <Screen title="Settings">{null}</Screen>;
}
