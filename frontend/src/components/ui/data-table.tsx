// Sortable table: columns declare how to read a sortable value and how to render.
import { type ReactNode, useMemo } from 'react';

export interface Column<T> {
  key: string;
  header: string;
  value: (row: T) => string | number | boolean | null | undefined;
  render?: (row: T) => ReactNode;
  numeric?: boolean;
  /** hidden in narrow windows (CSS .col-opt) so the key columns stay on screen */
  optional?: boolean;
}

function cellClass<T>(c: Column<T>): string | undefined {
  return [c.numeric ? 'num' : '', c.optional ? 'col-opt' : ''].filter(Boolean).join(' ') || undefined;
}

export function compareValues(a: unknown, b: unknown): number {
  // nulls last whatever the direction of the other values
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), 'en', { numeric: true });
}

export function sortRows<T>(rows: readonly T[], column: Column<T> | undefined, desc: boolean): T[] {
  if (!column) return [...rows];
  const sorted = [...rows].sort((x, y) => {
    const a = column.value(x);
    const b = column.value(y);
    if (a === null || a === undefined || b === null || b === undefined) return compareValues(a, b);
    const c = compareValues(a, b);
    return desc ? -c : c;
  });
  return sorted;
}

export function DataTable<T>({
  columns,
  rows,
  sort,
  onSort,
  rowKey,
  rowClass,
  testId,
  serverSorted = false,
}: {
  columns: Column<T>[];
  rows: readonly T[];
  /** "key" or "-key" (descending). */
  sort: string;
  onSort: (sort: string) => void;
  rowKey: (row: T, index: number) => string;
  rowClass?: (row: T) => string | undefined;
  testId?: string;
  /** The rows come sorted (and paged) by the server over every matching row: keep their order. */
  serverSorted?: boolean;
}) {
  const desc = sort.startsWith('-');
  const sortKey = desc ? sort.slice(1) : sort;
  const column = columns.find((c) => c.key === sortKey);
  const sorted = useMemo(() => (serverSorted ? rows : sortRows(rows, column, desc)), [rows, column, desc, serverSorted]);
  return (
    <div className="table-wrap">
      <table className="data-table" data-testid={testId} data-sort={sort}>
        <thead>
          <tr>
            {columns.map((c) => {
              const active = c.key === sortKey;
              return (
                <th
                  key={c.key}
                  className={cellClass(c)}
                  aria-sort={active ? (desc ? 'descending' : 'ascending') : 'none'}
                >
                  <button type="button" className="th-sort" onClick={() => onSort(active && !desc ? `-${c.key}` : c.key)}>
                    {c.header}
                    <span aria-hidden="true">{active ? (desc ? ' ▼' : ' ▲') : ''}</span>
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {sorted.map((row, i) => (
            <tr key={rowKey(row, i)} className={rowClass?.(row)}>
              {columns.map((c) => (
                <td key={c.key} className={cellClass(c)}>
                  {c.render ? c.render(row) : String(c.value(row) ?? '—')}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
