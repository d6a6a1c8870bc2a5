import type { CodecSet } from '@/types/api';

const ORDER = ['zstd', 'lz4', 'lzma', 'zlib', 'xxhash'];

/** "builtin: zstd 1.5.7 · lz4 1.10.0 · lzma 5.4.1 · …": the versions a point was measured with. */
export function fmtCodecs(codecs: CodecSet | null | undefined): string {
  if (!codecs) return 'codec versions not recorded';
  const libs = Object.entries(codecs.libraries).sort(
    ([a], [b]) => (ORDER.indexOf(a) + 99) % 99 - ((ORDER.indexOf(b) + 99) % 99) || a.localeCompare(b),
  );
  const release = codecs.root_version ? ` (ROOT ${codecs.root_version})` : '';
  return `${codecs.set}${release}: ${libs.map(([k, v]) => `${k} ${v}`).join(' · ')}`;
}
