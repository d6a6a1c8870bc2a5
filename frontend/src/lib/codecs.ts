import type { CodecSeries, CodecSet } from '@/types/api';

const ORDER = ['zstd', 'lz4', 'lzma', 'zlib', 'xxhash'];

function ordered(libraries: Record<string, string>): [string, string][] {
  return Object.entries(libraries).sort(
    ([a], [b]) => (ORDER.indexOf(a) + 99) % 99 - ((ORDER.indexOf(b) + 99) % 99) || a.localeCompare(b),
  );
}

/** "builtin: zstd 1.5.7 · lz4 1.10.0 · lzma 5.4.1 · …": the versions a point was measured with. */
export function fmtCodecs(codecs: CodecSet | null | undefined): string {
  if (!codecs) return 'codec versions not recorded';
  const libs = ordered(codecs.libraries);
  const release = codecs.root_version ? ` (ROOT ${codecs.root_version})` : '';
  return `${codecs.set}${release}: ${libs.map(([k, v]) => `${k} ${v}`).join(' · ')}`;
}

/**
 * What a codec series is called: its key when the key is a word ("builtin": ROOT's own codec
 * copies, whichever release or pin a point has, e.g. the sets root-6.38.00 and root-6.40.00),
 * else (one series per exact versions, keyed by a hash) its set's name ("host").
 */
export function seriesName(c: Pick<CodecSet, 'set' | 'series_key'>): string {
  return /^[0-9a-f]{64}$/.test(c.series_key) ? c.set : c.series_key;
}

const SET_WORDS: Record<string, string> = {
  builtin: "ROOT's own copies",
  host: "the machine's libraries",
};

/**
 * A codec series in words, with the versions it spans:
 * "builtin: ROOT's own copies, ROOT 6.38.00 → 6.40.00 (zstd 1.4.8 → 1.5.7, lz4 1.9.3 → 1.10.0)"
 * or "host: the machine's libraries (zstd 1.5.4, lz4 1.9.4, lzma 5.4.1, zlib 1.2.13)".
 * Libraries that moved are named with their range; when none moved, every library is named.
 */
export function seriesLabel(s: CodecSeries): string {
  const first = s.first_libraries ?? s.libraries;
  const libs = ordered(s.libraries);
  const moved = libs.filter(([k, v]) => first[k] !== undefined && first[k] !== v);
  const versions = (moved.length ? moved : libs)
    .map(([k, v]) => (first[k] !== undefined && first[k] !== v ? `${k} ${first[k]} → ${v}` : `${k} ${v}`))
    .join(', ');
  const lo = s.first_root_version ?? s.root_version;
  const hi = s.root_version;
  const root = hi ? `, ROOT ${lo && lo !== hi ? `${lo} → ` : ''}${hi}` : '';
  const name = seriesName(s);
  const words = SET_WORDS[name];
  const commits = s.commits ? ` · ${s.commits} commit${s.commits === 1 ? '' : 's'}` : '';
  return `${name}: ${words ?? 'named set'}${root}${versions ? ` (${versions})` : ''}${commits}`;
}

/** The short name of a series in URLs: its name when no other series has it, else its key. */
export function seriesParam(s: CodecSeries, all: readonly CodecSeries[]): string {
  const name = seriesName(s);
  return all.filter((x) => seriesName(x) === name).length > 1 ? s.series_key : name;
}

/** The series a URL value names (a series key, a series name or a set name), if listed. */
export function findSeries(all: readonly CodecSeries[], value: string): CodecSeries | undefined {
  return all.find((s) => s.series_key === value) ?? all.find((s) => seriesName(s) === value) ?? all.find((s) => s.set === value);
}

/** Codec series of several answers, once each, in the order first seen (newest first per answer). */
export function unionSeries(lists: readonly (readonly CodecSeries[])[]): CodecSeries[] {
  const seen = new Map<string, CodecSeries>();
  for (const list of lists) for (const s of list) if (!seen.has(s.series_key)) seen.set(s.series_key, s);
  return [...seen.values()];
}
