// The compare table's columns; the last links each row's series to the History page.
import { Link } from 'react-router';
import type { Column } from '@/components/ui/data-table';
import { fmtPct, METRIC_LABELS } from '@/lib/format';
import { compareRowHistoryLink } from '@/lib/history-links';
import type { CompareAb, CompareRow } from '@/types/api';
import { evidenceText, verdictText } from '../utils/evidence';
import { fmtDeltaBytes, fmtRatios, fmtValue } from '../utils/format';

/** `historyMachine`: the machine the history links plot (the head machine, or the one machine);
 * `ab`: the A/B behind rows of evidence ab; `machines`: a comparison of two machines. */
export function compareColumns(historyMachine: string, ab: CompareAb | null | undefined, machines: boolean): Column<CompareRow>[] {
  return [
    { key: 'dataset', header: 'dataset', value: (r) => r.dataset },
    { key: 'configuration', header: 'configuration', value: (r) => r.configuration.label },
    { key: 'metric', header: 'metric', value: (r) => r.metric, render: (r) => METRIC_LABELS[r.metric] ?? r.metric, optional: true },
    { key: 'base', header: 'base', value: (r) => r.base, render: (r) => fmtValue(r.base, r.base_bytes), numeric: true },
    { key: 'head', header: 'head', value: (r) => r.head, render: (r) => fmtValue(r.head, r.head_bytes), numeric: true },
    { key: 'delta_pct', header: 'Δ', value: (r) => r.delta_pct, render: (r) => fmtPct(r.delta_pct), numeric: true },
    { key: 'delta_bytes', header: 'byte change', value: (r) => r.delta_bytes, render: (r) => fmtDeltaBytes(r.delta_bytes), numeric: true, optional: true },
    { key: 'ratio', header: 'ratio', value: (r) => r.head_ratio, render: (r) => fmtRatios(r.base_ratio, r.head_ratio), numeric: true, optional: true },
    {
      key: 'significant',
      header: 'verdict',
      value: (r) => (r.regression ? 2 : r.significant ? 1 : 0),
      render: (r) => verdictText(r),
    },
    {
      key: 'evidence',
      header: 'evidence',
      value: (r) => r.evidence?.kind ?? null,
      render: (r) => {
        const text = evidenceText(r.evidence, ab, machines);
        if (text === null) return <span className="muted">{r.metric.endsWith('instructions_per_mb') ? 'counts' : 'exact'}</span>;
        const kind = r.evidence?.kind ?? 'none';
        return (
          <span className={`badge ${kind === 'none' ? '' : 'badge-info'}`} data-testid="evidence" data-kind={kind}>
            {text}
          </span>
        );
      },
    },
    { key: 'history', header: 'history', value: () => null, render: (r) => <Link to={compareRowHistoryLink(r, historyMachine)}>history</Link> },
  ];
}
