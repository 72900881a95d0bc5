/**
 * Renders the OpenAPI document as one self-contained HTML page: no scripts, no external files,
 * so it works offline and under a CSP that allows nothing but its own inline stylesheet.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const asObject = (value: unknown): Json => (isObject(value) ? value : {});
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string => (typeof value === "string" ? value : "");

export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export const docsStyle = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fff}
main{max-width:60rem;margin:0 auto;padding:1.5rem}
nav ul{columns:2;padding-left:1.2rem}
h2{border-bottom:1px solid #ddd;padding-bottom:.3rem;margin-top:2.5rem}
section.op{border:1px solid #e3e3e3;border-radius:6px;padding:.8rem 1rem;margin:1rem 0}
code,pre{font:13px/1.4 ui-monospace,monospace}
pre{background:#f6f6f6;padding:.6rem;overflow:auto;border-radius:4px}
.m{display:inline-block;min-width:4.2rem;font-weight:700;text-transform:uppercase}
.get{color:#0a6}.post{color:#06c}.put{color:#a60}.patch{color:#a60}.delete{color:#c22}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #eee;text-align:left;padding:.25rem .4rem;vertical-align:top}
ul.schema{list-style:none;padding-left:1rem;margin:.2rem 0}.req{color:#c22}.note{color:#666}
@media (prefers-color-scheme:dark){body{background:#111;color:#ddd}pre{background:#1c1c1c}section.op{border-color:#333}}
`;

const constraintKeys = [
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "pattern",
  "format",
];

function typeLabel(schema: Json): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  if ("const" in schema) return `exactly ${JSON.stringify(schema.const)}`;
  const type = text(schema.type) || (schema.anyOf ? "one of" : "any JSON");
  const notes = constraintKeys
    .filter((key) => schema[key] !== undefined)
    .map((key) => `${key} ${String(schema[key])}`);
  if (schema.nullable === true) notes.push("nullable");
  if (schema.default !== undefined) notes.push(`default ${JSON.stringify(schema.default)}`);
  return notes.length > 0 ? `${type} (${notes.join(", ")})` : type;
}

/** A JSON Schema as a nested list: fields, types, constraints. */
export function schemaHtml(value: unknown, depth = 0): string {
  const schema = asObject(value);
  if (depth > 8) return "<span class=note>…</span>";
  const note = text(schema.description)
    ? ` <span class=note>${escapeHtml(text(schema.description))}</span>`
    : "";
  const label = `<code>${escapeHtml(typeLabel(schema))}</code>${note}`;
  const required = new Set(asArray(schema.required).map(text));
  const properties = Object.entries(asObject(schema.properties));
  if (properties.length > 0) {
    const rows = properties.map(
      ([name, child]) =>
        `<li><code>${escapeHtml(name)}</code>${required.has(name) ? " <span class=req>required</span>" : ""}: ${schemaHtml(child, depth + 1)}</li>`,
    );
    return `${label}<ul class=schema>${rows.join("")}</ul>`;
  }
  if (schema.items !== undefined) return `${label} of ${schemaHtml(schema.items, depth + 1)}`;
  const options = asArray(schema.anyOf);
  if (options.length > 0) {
    return `${label}<ul class=schema>${options.map((option) => `<li>${schemaHtml(option, depth + 1)}</li>`).join("")}</ul>`;
  }
  return label;
}

function parametersHtml(parameters: unknown[]): string {
  if (parameters.length === 0) return "";
  const rows = parameters.map((raw) => {
    const p = asObject(raw);
    const required = p.required === true ? " <span class=req>required</span>" : "";
    return `<tr><td><code>${escapeHtml(text(p.name))}</code>${required}</td><td>${escapeHtml(text(p.in))}</td><td>${schemaHtml(p.schema)}</td></tr>`;
  });
  return `<h4>Parameters</h4><table><tr><th>Name</th><th>In</th><th>Type</th></tr>${rows.join("")}</table>`;
}

function contentHtml(content: unknown): string {
  return Object.entries(asObject(content))
    .map(([type, media]) => `<p><code>${escapeHtml(type)}</code> ${schemaHtml(asObject(media).schema)}</p>`)
    .join("");
}

function operationHtml(method: string, path: string, raw: unknown): string {
  const op = asObject(raw);
  const id = `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, "-");
  const description = text(op.description) ? `<p>${escapeHtml(text(op.description))}</p>` : "";
  const body = op.requestBody ? `<h4>Request body</h4>${contentHtml(asObject(op.requestBody).content)}` : "";
  const responses = Object.entries(asObject(op.responses))
    .filter(([status]) => status !== "default")
    .map(
      ([status, r]) =>
        `<li><b>${escapeHtml(status)}</b> ${escapeHtml(text(asObject(r).description))}${contentHtml(asObject(r).content)}</li>`,
    )
    .join("");
  return `<section class=op id="${id}"><h3><span class="m ${escapeHtml(method)}">${escapeHtml(method)}</span> <code>${escapeHtml(path)}</code></h3>
<p><b>${escapeHtml(text(op.summary))}</b></p>${description}${parametersHtml(asArray(op.parameters))}${body}
<h4>Responses</h4><ul>${responses}<li><b>4xx/5xx</b> <code>{"error":{"code","message","details?"}}</code></li></ul></section>`;
}

/** The whole reference page, grouped by tag. */
export function renderApiDocsHtml(document: Json): string {
  const info = asObject(document.info);
  const groups = new Map<string, string[]>();
  const toc: string[] = [];
  for (const [path, item] of Object.entries(asObject(document.paths))) {
    for (const [method, op] of Object.entries(asObject(item))) {
      const tag = text(asArray(asObject(op).tags)[0]) || "Other";
      const id = `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, "-");
      groups.set(tag, [...(groups.get(tag) ?? []), operationHtml(method, path, op)]);
      toc.push(
        `<li><a href="#${id}"><span class="m ${escapeHtml(method)}">${escapeHtml(method)}</span> ${escapeHtml(path)}</a></li>`,
      );
    }
  }
  const sections = [...groups].map(([tag, ops]) => `<h2>${escapeHtml(tag)}</h2>${ops.join("")}`).join("");
  const title = `${text(info.title)} API ${text(info.version)}`;
  return `<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${docsStyle}</style></head><body><main>
<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text(info.description))}</p>
<p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI ${escapeHtml(text(document.openapi))}).
JSON bodies use camelCase fields; lists answer <code>{items,total,limit,offset}</code>; timestamps are ISO 8601 UTC.</p>
<nav><h2>Endpoints</h2><ul>${toc.join("")}</ul></nav>${sections}</main></body></html>`;
}
