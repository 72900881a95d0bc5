import { Screen } from "../ui.tsx";

export function FormatsScreen() {
  return <Screen title="Formats">{null}</Screen>;
}
