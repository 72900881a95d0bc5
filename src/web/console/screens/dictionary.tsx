import type { LexiconSpec } from "../lexicon-spec.ts";
import { LexiconScreen } from "../lexicon-table.tsx";

const dictionary: LexiconSpec = {
  name: "dictionary",
  title: "Dictionary",
  intro:
    "When a dictation contains a key (whole words, any letter case), svc writes its value instead: fix names the engine mishears or expand short phrases.",
  one: "entry",
  fields: [
    { name: "key", label: "When you say", placeholder: "e.g. post gress", required: true },
    { name: "value", label: "Write", placeholder: "e.g. PostgreSQL", required: true },
  ],
  extra: [{ label: "Used", render: (entry) => String("usageCount" in entry ? entry.usageCount : 0) }],
  empty: "The dictionary is empty. Add an entry in the first row, or import a JSON or CSV file.",
};

export function DictionaryScreen() {
  return <LexiconScreen spec={dictionary} />;
}
