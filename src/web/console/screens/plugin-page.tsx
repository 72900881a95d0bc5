import { Screen } from "../ui.tsx";

export function PluginPageScreen(props: { slug: string; pageId: string }) {
  return <Screen title={props.pageId}>{props.slug}</Screen>;
}
