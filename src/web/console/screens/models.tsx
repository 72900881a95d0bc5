import { Screen } from "../ui.tsx";

export function ModelsScreen() {
  return <Screen title="Models">{null}</Screen>;
}
