import { describe, expect, test } from "bun:test";
import { CsvError, parseCsv, toCsv } from "../../src/data/csv.ts";

const fields = (text: string) => parseCsv(text).map((record) => record.fields);

describe("parseCsv", () => {
  test.each([
    [
      "plain fields",
      "a,b\nc,d",
      [
        ["a", "b"],
        ["c", "d"],
      ],
    ],
    [
      "CRLF line ends and a final line break",
      "a,b\r\nc,d\r\n",
      [
        ["a", "b"],
        ["c", "d"],
      ],
    ],
    ["a leading BOM", "\uFEFFkey,value\n", [["key", "value"]]],
    ["a quoted comma", '"a,b",c', [["a,b", "c"]]],
    ["doubled quotes", '"say ""hi""",x', [['say "hi"', "x"]]],
    ["a quoted line break", '"line1\r\nline2",x\n', [["line1\r\nline2", "x"]]],
    ["empty fields", ",,\n", [["", "", ""]]],
    ["an empty quoted field", '"",x', [["", "x"]]],
    ["a trailing empty field", "a,", [["a", ""]]],
    ["blank lines as single empty fields", "a\n\nb", [["a"], [""], ["b"]]],
    [
      "unicode",
      "ключ,значение\n東京,🚀",
      [
        ["ключ", "значение"],
        ["東京", "🚀"],
      ],
    ],
    ["empty input", "", []],
  ])("reads %s", (_, input, expected) => {
    expect(fields(input)).toEqual(expected);
  });

  test("numbers records by the physical line they start on", () => {
    const records = parseCsv('h\n"two\nlines"\nnext\r\n\r\nlast');
    expect(records.map((record) => record.line)).toEqual([1, 2, 4, 5, 6]);
  });

  test.each([
    ["an unclosed quote", 'a,b\n"open,x\n', 2, "never closed"],
    ["text after a closing quote", 'a\n"x"y,z', 2, "after a closing quote"],
    ["a quote inside an unquoted field", 'a\nsay "hi",x', 2, "unquoted field"],
    ["a stray quote on a later line", 'a\nb\n"c"d', 3, "after a closing quote"],
  ])("rejects %s with its line", (_, input, line, message) => {
    let caught: unknown;
    try {
      parseCsv(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CsvError);
    expect((caught as CsvError).line).toBe(line);
    expect((caught as CsvError).message).toContain(message);
  });
});

describe("toCsv", () => {
  test("quotes only fields that need it and ends every row with CRLF", () => {
    expect(
      toCsv([
        ["key", "value"],
        ["a,b", 'say "hi"'],
        ["multi\nline", " padded"],
        ["plain", ""],
      ]),
    ).toBe('key,value\r\n"a,b","say ""hi"""\r\n"multi\nline"," padded"\r\nplain,\r\n');
  });

  test("round-trips awkward fields through parseCsv", () => {
    const alphabet = ['"', ",", "\n", "\r\n", " ", "a", "é", "東", "🚀", "=", "'"];
    const random = (length: number) =>
      Array.from({ length }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join("");
    const rows = Array.from({ length: 200 }, (_, i) => [random(1 + (i % 9)), random(i % 7)]);
    expect(fields(toCsv(rows))).toEqual(rows);
  });
});
