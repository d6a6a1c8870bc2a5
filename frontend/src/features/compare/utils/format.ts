// Cell texts of the compare table.
import { fmtNumber } from '@/lib/format';

/** Exact bytes when the server has them (merged size rows), else the rounded value. */
export function fmtValue(v: number | null, bytes: number | null | undefined): string {
  return bytes !== null && bytes !== undefined ? `${bytes.toLocaleString('en-US')} B` : fmtNumber(v);
}

export function fmtDeltaBytes(d: number | null | undefined): string {
  if (d === null || d === undefined) return '';
  return `${d > 0 ? '+' : ''}${d.toLocaleString('en-US')} B`;
}

export function fmtRatios(b: number | null | undefined, h: number | null | undefined): string {
  if (b === null || b === undefined || h === null || h === undefined) return '';
  return `${b.toFixed(4)} → ${h.toFixed(4)}`;
}
