import { Screen } from "../ui.tsx";

export function DictateScreen() {
  return <Screen title="Dictate">{null}</Screen>;
}
