// What measured the ranked numbers and how far to trust the winner: ROOT and codec versions,
// machine, date, where the speeds come from and how stable the answer is under resampling.
import type { CodecSet } from '@/types/api';
import type { AdviceFile } from '../utils/candidates';

interface Row {
  label: string;
  value: string;
}

const versions = (libraries: Record<string, string>) =>
  Object.entries(libraries)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'not recorded';

function rootText(rootVersion: string | null | undefined, set: string | null | undefined): string {
  if (rootVersion) return `ROOT ${rootVersion}`;
  return `no ROOT release: basketbench's own compression layer (codec set ${set ?? 'unknown'})`;
}

export function adviceRows(advice: AdviceFile): Row[] {
  const p = advice.provenance;
  if (!p) return [{ label: 'measured by', value: 'not stated in this advice file (written by an older basketbench advise)' }];
  return [
    { label: 'ROOT', value: rootText(p.root_version, p.codec_set) },
    { label: 'codecs', value: versions(p.codec_versions) },
    { label: 'machine', value: p.cpu_model ?? 'not recorded' },
    { label: 'measured', value: p.measured_at ?? 'date not recorded' },
  ];
}

export function trackerRows(codecs: CodecSet | null | undefined, machine: string, commit: string, committedAt: string | null): Row[] {
  return [
    { label: 'ROOT', value: rootText(codecs?.root_version, codecs?.set) },
    { label: 'codecs', value: codecs ? versions(codecs.libraries) : 'not recorded' },
    { label: 'machine', value: machine },
    { label: 'measured', value: `commit ${commit.slice(0, 12)}${committedAt ? ` (${committedAt.slice(0, 10)})` : ''}` },
  ];
}

export function Provenance({ rows, stability, evidence }: { rows: Row[]; stability: string; evidence: string }) {
  return (
    <dl className="provenance" data-testid="provenance">
      {rows.map((r) => (
        <div key={r.label}>
          <dt>{r.label}</dt>
          <dd data-testid={`provenance-${r.label.replace(/\s+/g, '-')}`}>{r.value}</dd>
        </div>
      ))}
      <div>
        <dt>speeds</dt>
        <dd data-testid="speed-evidence">{evidence}</dd>
      </div>
      <div>
        <dt>stability</dt>
        <dd data-testid="stability">{stability}</dd>
      </div>
    </dl>
  );
}

/** The C++ that applies the answer in ROOT, with a copy button. */
export function RootSnippet({ snippet, title }: { snippet: string; title: string }) {
  const copy = () => void navigator.clipboard?.writeText(snippet);
  return (
    <section className="card" data-testid="root-snippet-card">
      <h3>
        {title}{' '}
        <button type="button" className="btn btn-small" onClick={copy} data-testid="copy-snippet">
          copy
        </button>
      </h3>
      <pre data-testid="root-snippet">{snippet}</pre>
    </section>
  );
}
