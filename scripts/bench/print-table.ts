/** Prints rows as aligned columns: the first left-aligned, the rest right-aligned. */
export function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  for (const row of rows) {
    console.log(
      row
        .map((cell, column) =>
          column === 0 || column === row.length - 1 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]),
        )
        .join("  ")
        .trimEnd(),
    );
  }
}
