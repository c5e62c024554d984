// One cell of the CSV files people open in a spreadsheet: the exports and reports of the command
// lines (src/server) and the programme page's download (src/web).

// A cell starting with = + - @ (or a tab or carriage return) is run as a formula by Excel
// and LibreOffice; a leading quote makes it text. https://owasp.org/www-community/attacks/CSV_Injection
// Spreadsheets skip leading spaces and invisible format characters (U+200B, U+00A0, …) and
// read the full-width signs as the ASCII ones, so the first other character decides.
const formulaStart = /^[\p{White_Space}\p{Cf}]*[=+\-@\t\r＝＋－＠]/u;

/** A text cell, disarmed and quoted as needed; null is an empty cell. */
export function csvCell(value: string | null): string {
  if (value === null) return '';
  const safe = formulaStart.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** A file's lines as Excel opens them: UTF-8 with a byte order mark, each ending in CRLF. */
export function csvText(lines: string[]): string {
  return `\uFEFF${lines.map((line) => `${line}\r\n`).join('')}`;
}
