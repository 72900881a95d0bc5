import type { LexiconSpec } from "../lexicon-spec.ts";
import { LexiconScreen } from "../lexicon-table.tsx";

const vocabulary: LexiconSpec = {
  name: "vocabulary",
  title: "Vocabulary",
  intro:
    "Terms the speech engine should expect (names, jargon, product words): svc passes them to the engine as a hint so it spells them as written here.",
  one: "term",
  fields: [
    { name: "term", label: "Term", placeholder: "e.g. Kubernetes", required: true },
    { name: "notes", label: "Notes", placeholder: "optional", required: false },
  ],
  empty: "The vocabulary is empty. Add a term in the first row, or import a JSON or CSV file.",
};

export function VocabularyScreen() {
  return <LexiconScreen spec={vocabulary} />;
}
