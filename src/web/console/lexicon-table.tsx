// The dictionary and vocabulary screens: search, page, add, edit and delete entries in one table,
// import and export files; kept current by `<name>.changed` and `data.imported` events.
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";
import { useServerEvents } from "./events.ts";
import { type Draft, EditRow } from "./lexicon-row.tsx";
import { fieldOf, type LexiconEntry, type LexiconPath, type LexiconSpec } from "./lexicon-spec.ts";
import { LexiconTransfer } from "./lexicon-transfer.tsx";
import { lastPageOffset, Pager, SearchBox, useDebounced } from "./list-controls.tsx";
import { toast, toastError } from "./toast.tsx";
import { ConfirmButton, ErrorText, focusAfterRemoval, Screen, useResource } from "./ui.tsx";

const pageSize = 50;

/**
 * The body of a create (blank optional fields left out) or of a patch (changed fields only), built
 * from the spec's fields at run time: it is sent as JSON text, and the API validates it.
 */
function bodyOf(spec: LexiconSpec, draft: Draft, entry?: LexiconEntry): Record<string, string> {
  const body: Record<string, string> = {};
  for (const field of spec.fields) {
    const value = draft[field.name] ?? "";
    if (entry ? value !== String(fieldOf(entry, field.name) ?? "") : field.required || value.trim() !== "")
      body[field.name] = value;
  }
  return body;
}

const asJson = (body: Record<string, string>) => ({
  raw: JSON.stringify(body),
  headers: { "content-type": "application/json" },
});

export function LexiconScreen(props: { spec: LexiconSpec }) {
  const { spec } = props;
  const { name, fields } = spec;
  const keyField = fields[0].name;
  const [search, setSearch] = useState("");
  const settled = useDebounced(search.trim(), 250);
  const [offset, setOffset] = useState(0);
  const [editing, setEditing] = useState<number | null>(null);
  const path: LexiconPath = `/api/${name}`;
  const list = useResource(path, { query: { search: settled, limit: pageSize, offset } });
  useServerEvents([`${name}.changed`, "data.imported"], () => void list.reload());
  useEffect(() => setOffset(0), [settled]);

  const page = list.data;
  useEffect(() => {
    // A deletion (here or elsewhere) emptied this page: show the last one that has entries.
    if (page && page.items.length === 0 && page.offset > 0) setOffset(lastPageOffset(page.total, pageSize));
  }, [page]);

  const keyOf = (entry: LexiconEntry) => String(fieldOf(entry, keyField) ?? "");
  const focusEdit = (id: number) => setTimeout(() => document.getElementById(`${name}-edit-${id}`)?.focus());
  const create = async (draft: Draft) => {
    const created = await api.post(path, asJson(bodyOf(spec, draft)));
    toast(`Added “${keyOf(created)}”.`, "success");
    await list.reload();
  };
  const update = (entry: LexiconEntry) => async (draft: Draft) => {
    const body = bodyOf(spec, draft, entry);
    if (Object.keys(body).length > 0)
      await api.patch(`${path}/{id}`, { params: { id: entry.id }, ...asJson(body) });
    setEditing(null);
    focusEdit(entry.id);
    await list.reload();
  };
  const remove = async (entry: LexiconEntry) => {
    // The next row's Edit (or the previous one's, or the heading) once this row is gone.
    const refocus = focusAfterRemoval(document.getElementById(`${name}-edit-${entry.id}`)?.closest("tr"));
    try {
      await api.delete(`${path}/{id}`, { params: { id: entry.id } });
      toast(`Deleted “${keyOf(entry)}”.`, "success");
      await list.reload();
      refocus();
    } catch (error) {
      toastError(error);
    }
  };
  const spare = spec.extra?.length ?? 0;

  return (
    <Screen title={spec.title}>
      <p class="muted">{spec.intro}</p>
      <div class="row toolbar">
        <SearchBox id={`${name}-search`} label={`Search the ${name}`} value={search} onInput={setSearch} />
      </div>
      <ErrorText error={list.error} />
      <div class="table-wrap">
        <table class="lexicon" aria-label={spec.title} aria-busy={list.loading ? "true" : undefined}>
          <thead>
            <tr>
              {fields.map((field) => (
                <th key={field.name} scope="col">
                  {field.label}
                </th>
              ))}
              {spec.extra?.map((column) => (
                <th key={column.label} scope="col" class="col-extra">
                  {column.label}
                </th>
              ))}
              <th scope="col" class="col-actions">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            <EditRow
              idPrefix={`${name}-new`}
              fields={fields}
              spare={spare}
              subject={`new ${spec.one}`}
              save={create}
            />
            {page?.items.map((entry) =>
              editing === entry.id ? (
                <EditRow
                  key={entry.id}
                  idPrefix={`${name}-edit-${entry.id}-field`}
                  fields={fields}
                  entry={entry}
                  spare={spare}
                  subject={`“${keyOf(entry)}”`}
                  save={update(entry)}
                  onCancel={() => {
                    setEditing(null);
                    focusEdit(entry.id);
                  }}
                />
              ) : (
                <tr key={entry.id}>
                  {fields.map((field) => (
                    <td key={field.name} data-label={field.label} class="cell-text">
                      {String(fieldOf(entry, field.name) ?? "") || null}
                    </td>
                  ))}
                  {spec.extra?.map((column) => (
                    <td key={column.label} data-label={column.label}>
                      {column.render(entry)}
                    </td>
                  ))}
                  <td class="actions">
                    <button
                      type="button"
                      id={`${name}-edit-${entry.id}`}
                      aria-label={`Edit “${keyOf(entry)}”`}
                      onClick={() => setEditing(entry.id)}
                    >
                      Edit
                    </button>
                    <ConfirmButton
                      label="Delete"
                      confirm="Confirm delete"
                      subject={`“${keyOf(entry)}”`}
                      onConfirm={() => void remove(entry)}
                    />
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
      {page && page.total === 0 && (
        <p class="empty muted">{settled ? `Nothing in the ${name} matches “${settled}”.` : spec.empty}</p>
      )}
      {page && (
        <Pager
          label={`${spec.title} pages`}
          total={page.total}
          limit={pageSize}
          offset={page.offset}
          onOffset={setOffset}
        />
      )}
      <h2>Import and export</h2>
      <LexiconTransfer
        name={name}
        columns={fields.map((field) => field.name)}
        onImported={() => void list.reload()}
      />
    </Screen>
  );
}
