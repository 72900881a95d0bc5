import { Screen } from "../ui.tsx";

export function VocabularyScreen() {
  return <Screen title="Vocabulary">{null}</Screen>;
}
