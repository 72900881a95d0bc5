import { Screen } from "../ui.tsx";

export function DictionaryScreen() {
  return <Screen title="Dictionary">{null}</Screen>;
}
