/** Rows as aligned columns, two spaces apart; the last column is not padded. */
export function alignColumns(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  return rows.map((row) =>
    row
      .map((cell, column) => (column < row.length - 1 ? cell.padEnd(widths[column]!) : cell))
      .join('  ')
      .trimEnd(),
  );
}
