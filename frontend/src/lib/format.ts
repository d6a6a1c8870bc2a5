export function shortSha(sha: string | null | undefined): string {
  return sha ? sha.slice(0, 10) : '—';
}

export function fmtNumber(v: number | null | undefined, digits = 3): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  const abs = Math.abs(v);
  if (abs !== 0 && (abs >= 1e6 || abs < 1e-3)) return v.toExponential(2);
  return v.toLocaleString('en-US', { maximumSignificantDigits: digits + 1 });
}

export function fmtPct(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  return `${v > 0 ? '+' : ''}${v.toFixed(2)} %`;
}

export function fmtBytes(v: number | null | undefined): string {
  if (v === null || v === undefined) return '—';
  const units = ['B', 'kB', 'MB', 'GB'];
  let x = v;
  let u = 0;
  while (Math.abs(x) >= 1000 && u < units.length - 1) {
    x /= 1000;
    u++;
  }
  return `${x.toFixed(u === 0 ? 0 : 2)} ${units[u]}`;
}

export function fmtDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** "3 min ago" style age, for heartbeats and queue times. */
export function fmtAge(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return 'never';
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return iso;
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

export const ALGORITHMS: Record<number, string> = {
  0: 'memcpy',
  1: 'ZLIB',
  2: 'LZMA',
  3: 'CS',
  4: 'LZ4',
  5: 'ZSTD',
};

export function algorithmName(algorithm: number): string {
  return ALGORITHMS[algorithm] ?? `alg ${algorithm}`;
}

export function settingLabel(setting: number): string {
  const alg = Math.floor(setting / 100);
  return setting === 0 ? 'memcpy' : `${algorithmName(alg)}-${setting % 100}`;
}

export const METRIC_LABELS: Record<string, string> = {
  ratio: 'compression ratio',
  compressed_bytes: 'compressed size [B]',
  compress_mbps: 'compression speed [MB/s]',
  decompress_mbps: 'decompression speed [MB/s]',
  // instruction counts under valgrind (issue 23): deterministic, one run finds a 0.5 % change
  compress_instructions_per_mb: 'compression instructions per MB',
  decompress_instructions_per_mb: 'decompression instructions per MB',
};
