/** One parsed CSV record and the physical line it starts on (1-based), for error messages. */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** Malformed CSV: `line` is where the problem was found. */
export class CsvError extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.name = "CsvError";
    this.line = line;
  }
}

const QUOTE = 34;
const COMMA = 44;
const CR = 13;
const LF = 10;

/**
 * Parses RFC 4180 CSV: comma-separated, fields optionally wrapped in double quotes, `""` for a
 * quote inside a quoted field, quoted fields may hold commas and line breaks, CRLF or LF line
 * ends, an optional UTF-8 BOM. Strict about quoting (a stray quote is an error, not data) so a
 * broken export is reported instead of silently importing shifted columns.
 */
export function parseCsv(input: string): CsvRecord[] {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  if (text === "") return [];
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let line = 1;
  let recordLine = 1;
  let i = 0;
  const endRecord = () => {
    records.push({ line: recordLine, fields });
    fields = [];
    recordLine = line;
  };
  for (;;) {
    if (text.charCodeAt(i) === QUOTE) {
      const start = line;
      let value = "";
      let from = i + 1;
      for (;;) {
        const close = text.indexOf('"', from);
        if (close < 0) throw new CsvError(start, "a quoted field is never closed (missing closing quote)");
        const chunk = text.slice(from, close);
        line += countLines(chunk);
        value += chunk;
        if (text.charCodeAt(close + 1) !== QUOTE) {
          i = close + 1;
          break;
        }
        value += '"';
        from = close + 2;
      }
      fields.push(value);
      const next = text.charCodeAt(i);
      if (i < text.length && next !== COMMA && next !== CR && next !== LF) {
        throw new CsvError(
          line,
          "unexpected text after a closing quote; double a quote inside a quoted field",
        );
      }
    } else {
      let end = i;
      while (end < text.length && !isDelimiter(text.charCodeAt(end))) end++;
      const value = text.slice(i, end);
      if (value.includes('"')) {
        throw new CsvError(
          line,
          "a quote inside an unquoted field; wrap the field in quotes and double the quote",
        );
      }
      fields.push(value);
      i = end;
    }
    if (i >= text.length) {
      endRecord();
      break;
    }
    const code = text.charCodeAt(i);
    if (code === COMMA) {
      i++;
      continue;
    }
    i += code === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
    line++;
    endRecord();
    // A final line break does not start another (empty) record.
    if (i === text.length) break;
  }
  return records;
}

const isDelimiter = (code: number) => code === COMMA || code === CR || code === LF;

function countLines(chunk: string): number {
  let lines = 0;
  for (let i = 0; i < chunk.length; i++) {
    const code = chunk.charCodeAt(i);
    if (code === LF || (code === CR && chunk.charCodeAt(i + 1) !== LF)) lines++;
  }
  return lines;
}

const needsQuotes = /[",\r\n]|^\s|\s$/;

/** Serialises rows as RFC 4180 CSV with CRLF line ends; fields are quoted only when they must be. */
export function toCsv(rows: readonly (readonly string[])[]): string {
  return rows
    .map((row) => row.map((field) => (needsQuotes.test(field) ? `"${field.replaceAll('"', '""')}"` : field)))
    .map((row) => `${row.join(",")}\r\n`)
    .join("");
}
