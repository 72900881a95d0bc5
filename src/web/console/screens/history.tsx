import { Screen } from "../ui.tsx";

export function HistoryScreen() {
  return <Screen title="History">{null}</Screen>;
}
